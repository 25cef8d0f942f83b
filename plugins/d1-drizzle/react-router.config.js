export default {
  ssr: true,
  future: { v8_viteEnvironmentApi: true },
};

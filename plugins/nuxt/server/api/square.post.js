import { readBody, setResponseStatus } from 'h3';

export default defineEventHandler(async (event) => {
  setResponseStatus(event, 201);
  return { echo: await readBody(event) };
});

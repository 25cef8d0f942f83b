// The page renderer every request's HTML comes from.
import { renderToStream } from '@builder.io/qwik/server';
import Root from './root.jsx';

export default function (opts) {
  return renderToStream(<Root />, { ...opts, containerAttributes: { lang: 'en', ...opts.containerAttributes } });
}

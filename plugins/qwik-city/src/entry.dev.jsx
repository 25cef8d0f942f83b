// `vite dev` renders on the client only.
import { render } from '@builder.io/qwik';
import Root from './root.jsx';

export default function (opts) {
  return render(document, <Root />, opts);
}

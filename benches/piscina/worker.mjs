// One Piscina worker: loads the bundle once, renders one request per task.
import { workerData } from 'piscina';

const mod = await import(workerData.bundle);
const render = typeof mod.render === 'function' ? mod.render : mod.default;

export default async function (request) {
  const out = await render(request);
  return typeof out === 'string' ? out : out.body;
}

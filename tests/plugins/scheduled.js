// A Worker with cron triggers: `scheduled` records each run in KV (what
// its controller said, and `ctx.waitUntil` work done after it), throws
// for the cron `0 0 1 1 *`, and never ends for `0 0 2 1 *`. `/runs`
// answers the runs recorded, `/runs?minute=MS` those of one minute (a
// replica's id beside each); `/replica` names the replica answering.
const fresh = { 'cache-control': 'no-store' };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/runs') {
      const minute = url.searchParams.get('minute');
      const { keys } = await env.KV.list({ prefix: minute === null ? 'run:' : `run:${minute}:` });
      const runs = [];
      for (const { name } of keys) runs.push(JSON.parse(await env.KV.get(name)));
      return Response.json(runs, { headers: fresh });
    }
    return new Response('a Worker of cron triggers\n', { headers: fresh });
  },
  async scheduled(controller, env, ctx) {
    if (controller.cron === '0 0 1 1 *') throw new Error('the scheduled handler threw');
    if (controller.cron === '0 0 2 1 *') for (;;);
    const run = {
      cron: controller.cron,
      scheduledTime: controller.scheduledTime,
      type: controller.type,
      controller: Object.prototype.toString.call(controller),
      noRetry: typeof controller.noRetry,
      env: Object.keys(env).sort(),
    };
    const key = `run:${controller.scheduledTime}:${crypto.randomUUID()}`;
    await env.KV.put(key, JSON.stringify(run));
    // Work after the handler returned, which the run waits for.
    ctx.waitUntil(new Promise((ok) => setTimeout(ok, 10)).then(() => {
      run.waitedUntil = true;
      return env.KV.put(key, JSON.stringify(run));
    }));
  },
};

// Timers in real time over HTTP (issue 56): `/wait` awaits 300 ms and says
// whether the clock moved as much; `/stream` sends a chunk, waits 300 ms on
// a timer, and sends another, so the two reach the client apart.
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/wait') {
      const started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return new Response(`waited ${Date.now() - started >= 300}`);
    }
    const encoder = new TextEncoder();
    const body = new ReadableStream({
      async start(controller) {
        controller.enqueue(encoder.encode('<p>before</p>'));
        await scheduler.wait(300);
        controller.enqueue(encoder.encode('<p>after</p>'));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/html', 'cache-control': 'no-store' } });
  },
};

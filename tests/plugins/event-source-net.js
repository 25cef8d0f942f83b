// `EventSource` over the tenant's `fetch` (no `fetcher`): the events of
// `?url=` until two messages came or the source closed, as JSON
// (tests/all/fetch.rs).
export default {
  fetch(request) {
    const url = new URL(request.url).searchParams.get('url');
    return new Promise((resolve) => {
      const log = [];
      const source = new EventSource(url);
      const done = () => {
        source.close();
        resolve(new Response(JSON.stringify(log)));
      };
      source.onopen = () => log.push(['open', source.readyState]);
      source.onmessage = (e) => {
        log.push(['message', e.data, e.lastEventId]);
        if (log.filter((l) => l[0] === 'message').length === 2) done();
      };
      source.onerror = (e) => {
        log.push(['error', source.readyState, e.error.message]);
        if (source.readyState === EventSource.CLOSED) done();
      };
    });
  },
};

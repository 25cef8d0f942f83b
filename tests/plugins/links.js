// A test renderer whose page links to itself the way a real site's would:
// through the base path it was routed by, and the absolute URL it was given.
export function render(req) {
  return `<a href="${req.base}/next">next</a> <link rel="canonical" href="${req.href}"> url=${req.url}`;
}

// Loads a server-rendered page in Debian's Chromium (headless, over the
// DevTools protocol through playwright-core, which downloads no browser),
// waits until React has hydrated it, clicks its button, and prints what it
// saw as JSON for tests/all/browser.rs to assert on:
//   { before, after, console: [{type, text}], pageErrors: [...],
//     requests: [{url, status, cacheControl, contentType}] }
//
// Run: node tests/browser/hydrate.mjs http://127.0.0.1:8080/t/hydrate/?start=3
// CHROMIUM overrides the browser (default /usr/bin/chromium).
import { chromium } from 'playwright-core';

const url = process.argv[2];
if (!url) {
  console.error('usage: node hydrate.mjs <url>');
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  // As root in a container Chromium needs --no-sandbox; the rest keep it
  // off the network this machine does not have.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const result = { console: [], pageErrors: [], requests: [] };
try {
  const page = await browser.newPage();
  page.on('console', (m) => result.console.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  page.on('response', (r) =>
    result.requests.push({
      url: r.url(),
      status: r.status(),
      cacheControl: r.headers()['cache-control'] ?? null,
      contentType: r.headers()['content-type'] ?? null,
    }),
  );
  const response = await page.goto(url, { waitUntil: 'load', timeout: 20_000 });
  if (!response || response.status() !== 200) {
    throw new Error(`the page answered ${response?.status()}`);
  }
  await page.waitForSelector('main[data-hydrated="yes"]', { timeout: 20_000 });
  result.before = await page.textContent('#count');
  await page.click('#add');
  await page.waitForFunction(
    (before) => document.querySelector('#count').textContent !== before,
    result.before,
    { timeout: 10_000 },
  );
  result.after = await page.textContent('#count');
} catch (e) {
  result.failure = String(e);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));

// Loads a streamed page with a Suspense boundary in Debian's headless
// Chromium (through playwright-core) and reports, as JSON for
// tests/all/browser.rs, whether the fallback showed first (while the content
// was not there) and the content then replaced it:
//   { fallbackFirst, itemsAfter, fallbackGone, console: [...], pageErrors: [...] }
//
// Run: node tests/browser/suspense.mjs http://127.0.0.1:8080/t/stream/ [RELEASE_URL]
// RELEASE_URL, if given, is asked for once the fallback was seen: the
// test's API holds the page's data until then.
import { chromium } from 'playwright-core';

const url = process.argv[2];
const release = process.argv[3];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const result = { console: [], pageErrors: [] };
try {
  const page = await browser.newPage();
  page.on('console', (m) => result.console.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  // 'commit': as soon as the response starts, before the document is whole.
  await page.goto(url, { waitUntil: 'commit', timeout: 20_000 });
  await page.waitForSelector('#fallback', { state: 'visible', timeout: 10_000 });
  result.fallbackFirst = (await page.$('#items')) === null;
  if (release !== undefined) await fetch(release);
  await page.waitForSelector('#items li', { timeout: 20_000 });
  result.itemsAfter = await page.$$eval('#items li', (lis) => lis.map((li) => li.textContent));
  await page.waitForSelector('#fallback', { state: 'detached', timeout: 10_000 });
  result.fallbackGone = true;
} catch (e) {
  result.failure = String(e);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));

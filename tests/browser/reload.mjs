// Opens a page served by `ssr dev` in Debian's headless Chromium, edits one
// of the site's files, and reports, as JSON for tests/all/dev.rs, whether
// the open page reloaded itself and showed the edit:
//   { before, after, loads, console: [...], pageErrors: [...] }
//
// Run: node tests/browser/reload.mjs URL FILE FROM TO
//   (FILE's first FROM becomes TO once the page listens for rebuilds)
import { readFile, writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';

const [url, file, from, to] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const result = { console: [], pageErrors: [], loads: 0 };
try {
  const page = await browser.newPage();
  page.on('console', (m) => result.console.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  page.on('load', () => { result.loads += 1; });
  const listening = page.waitForResponse((r) => new URL(r.url()).pathname === '/_ssr_dev/events', { timeout: 10_000 });
  await page.goto(url, { timeout: 20_000 });
  await listening;
  result.before = await page.textContent('h1');
  const source = await readFile(file, 'utf8');
  await writeFile(file, source.replace(from, to));
  // No navigation from here: only the page's own script can reload it.
  const deadline = Date.now() + 15_000;
  while (!result.after?.includes(to)) {
    await page.waitForEvent('load', { timeout: Math.max(1, deadline - Date.now()) });
    result.after = await page.textContent('h1');
  }
} catch (e) {
  result.failure = String(e);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));

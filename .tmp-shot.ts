import { chromium } from 'playwright-core';
async function main() {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  await ctx.addInitScript(() => {
    localStorage.setItem('namespace-workflow-table-columns', JSON.stringify({ default: [
      { label: 'Status' }, { label: 'Workflow ID' }, { label: 'EmailStatus' }, { label: 'EmailPriority' }, { label: 'NeedsHuman' }, { label: 'Mailbox' }, { label: 'DraftVersion' }, { label: 'Start' } ] }));
    localStorage.setItem('saved-workflow-queries', JSON.stringify({ default: [
      { id: 'needs-human', name: 'Waiting for a person', query: 'NeedsHuman=true' } ] }));
  });
  const page = await ctx.newPage();
  page.on('request', (r) => { if (!r.url().includes('18233')) console.log('REQ', r.url()); });
  await page.goto('http://127.0.0.1:18233/namespaces/default/workflows');
  await page.waitForTimeout(6000);
  await page.screenshot({ path: '/tmp/wui/list2.png' });
  const id = (await page.locator('a[href*="/workflows/email-b"]').first().innerText()).trim(); console.log('ID', id);
  await page.goto(`http://127.0.0.1:18233/namespaces/default/workflows/${id}`);
  await page.waitForTimeout(6000);
  await page.getByText('User Metadata', { exact: true }).click();
  await page.waitForTimeout(5000);
  console.log('URL', page.url());
  await page.screenshot({ path: '/tmp/wui/detail.png', fullPage: true });
  console.log(await page.locator('main').innerHTML().then((h) => h.slice(h.indexOf('Summary') - 200, h.indexOf('Summary') + 6000)));
  console.log((await page.locator('body').innerText()).slice(0, 2500));
  console.log(await page.evaluate(() => localStorage.getItem('saved-workflow-queries')));
  await browser.close();
}
main();

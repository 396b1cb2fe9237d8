import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

/**
 * axe-core's serious and critical WCAG 2 A/AA findings on a rendered inbox page, in Debian's
 * Chromium with the page's own stylesheet inline (colours and contrast are checked with it); the
 * live pages are checked the same way by test/e2e/inbox.e2e.test.ts.
 */
export async function assertNoAxeFindings(html: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    const css = readFileSync(path.join(__dirname, '../../src/review-inbox/views/inbox.css'), 'utf8');
    await page.setContent(html.replace('<link rel="stylesheet" href="/inbox.css">', () => `<style>${css}</style>`));
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
      .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))`)) as string[];
    assert.deepEqual(violations, []);
  } finally {
    await browser.close();
  }
}

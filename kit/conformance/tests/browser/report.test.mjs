// The HTML report in a real browser (adr/0020): runs the suite against a broken
// queue (mutant M1, served over the adapter protocol), opens the page in Debian's headless
// Chromium through playwright-core, and checks what a host engineer must be able to see:
// the failure, the timeline of the calls that produced it, the replay command (which is then
// run, and must fail the same way) and what the run did not prove. Screenshots are kept in
// THM_ARTIFACTS.
//
// Environment (set by CTest): THM (the tool), THM_MUTANT_ADAPTER, THM_CHROMIUM (empty when
// CMake found none: the test fails and says so), THM_ARTIFACTS (a directory).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const { THM, THM_MUTANT_ADAPTER, THM_CHROMIUM, THM_ARTIFACTS } = process.env;

let chromium;
let browser;
let page;
const page_requests = [];
const artifacts = THM_ARTIFACTS ?? '.';
const html = join(artifacts, 'report-m1.html');
const queue = `exec:${THM_MUTANT_ADAPTER} M1`;
const options = ['--short', '--repeat', '5', '--seed', '7'];

// `thm conformance ...`: its exit code and output (a failed check exits 1, not an error).
async function conformance(args) {
  try {
    const { stdout, stderr } = await run(THM, ['conformance', ...args], { maxBuffer: 1 << 24 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (typeof error.code !== 'number') throw error;
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

before(async () => {
  assert.ok(THM && THM_MUTANT_ADAPTER, 'THM and THM_MUTANT_ADAPTER are set by CTest');
  assert.ok(THM_CHROMIUM && existsSync(THM_CHROMIUM),
            `no Chromium (THM_CHROMIUM='${THM_CHROMIUM ?? ''}'): scripts/setup installs Debian's ` +
            '`chromium`; reconfigure after installing it');
  ({ chromium } = await import('playwright-core').catch(() => {
    throw new Error('playwright-core is not installed: scripts/setup runs npm ci in ' +
                    'kit/conformance/tests/browser');
  }));
  mkdirSync(artifacts, { recursive: true });
  const suite = await conformance(['--queue', queue, ...options, '--html', html]);
  assert.equal(suite.code, 1, `the suite passed a broken queue:\n${suite.stdout}\n${suite.stderr}`);
  browser = await chromium.launch({
    executablePath: THM_CHROMIUM,
    // Chromium's sandbox cannot start as root (CI's containers run as root).
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('request', (request) => page_requests.push(request.url()));
  await page.route('**/*', (route) =>
    route.request().url().startsWith('file:') ? route.continue() : route.abort());
  await page.goto(pathToFileURL(html).href);
  await page.screenshot({ path: join(artifacts, 'report-m1.png'), fullPage: true });
});

after(async () => {
  await browser?.close();
});

test('the page fetches nothing but itself', () => {
  assert.deepEqual(page_requests, [pathToFileURL(html).href]);
});

test('the verdict says checks failed', async () => {
  const verdict = page.locator('p.verdict.fail');
  assert.ok(await verdict.isVisible());
  assert.match(await verdict.innerText(), /^\d+ of 35 checks failed/);
});

test("EQ-02's failure shows its reason and a replay command that fails the same way", async () => {
  const failure = page.locator('section.failure#EQ-02');
  assert.ok(await failure.isVisible(), 'no visible failure section for EQ-02');
  await failure.screenshot({ path: join(artifacts, 'report-m1-eq02.png') });
  assert.match(await failure.locator('p.reason').innerText(),
               /second caller got Enqueued while the first caller's transaction was still open/);
  const replay = failure.locator('pre.replay');
  assert.ok(await replay.isVisible());
  const command = (await replay.innerText()).trim();
  assert.equal(command, `thm conformance --queue '${queue}' ${options.join(' ')} --check EQ-02`);
  // Run it as printed (the quoted queue as one argument), with this build's tool.
  const [, quoted] = command.match(/--queue '([^']*)'/);
  const args = command.replace(/^thm conformance --queue '[^']*' /, '').split(' ');
  const replayed = await conformance(['--queue', quoted, ...args]);
  assert.equal(replayed.code, 1, replayed.stdout);
  assert.match(replayed.stdout, /^EQ-02 +fail/m);
});

test('the timeline draws the interleaving: the second call inside the first one\'s pause',
     async () => {
  const timeline = page.locator('section.failure#EQ-02 svg.timeline');
  assert.ok(await timeline.isVisible(), 'no visible timeline');
  const box = await timeline.boundingBox();
  assert.ok(box.width >= 600 && box.height >= 60, JSON.stringify(box));
  for (const row of ['session 0', 'session 1']) {
    assert.ok(await timeline.locator('text.lane-label', { hasText: row }).isVisible(), row);
  }
  const pause = timeline.locator('g.event.pause rect.pause');
  assert.equal(await pause.count(), 1);
  assert.ok(await pause.isVisible());
  assert.match(await timeline.locator('g.event.pause title').textContent(),
               /^session 0: hook at before_commit/);
  const second = timeline.locator('rect.enqueued.repeat');
  assert.equal(await second.count(), 1, 'the second Enqueued is not marked');
  assert.ok(await second.isVisible());
  const [p, s] = [await pause.boundingBox(), await second.boundingBox()];
  // Drawn inside the pause, on a lower row.
  assert.ok(s.x >= p.x - 1 && s.x + s.width <= p.x + p.width + 1, JSON.stringify({ p, s }));
  assert.ok(s.y > p.y, JSON.stringify({ p, s }));
  // And in words, under the drawing.
  const events = page.locator('section.failure#EQ-02 table.events');
  assert.ok(await events.isVisible(), 'the events table is not open');
  assert.ok(await events.locator('td', { hasText: 'hook at before_commit' }).isVisible());
});

test('the page says what the run did not prove', async () => {
  const unproven = page.locator('#unproven');
  assert.ok(await unproven.isVisible());
  const text = await unproven.innerText();
  assert.match(text, /EQ-04 the decision rests on a unique constraint: not tested/);
  assert.match(text, /EQ-28 no acknowledged enqueue is lost when the leader is killed: not tested, needs a store on several nodes/);
});

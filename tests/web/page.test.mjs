// The web page in a real browser (Debian's Chromium, headless, driven by playwright-core):
// whole games against the engine by clicking cells, renju foul marks against known positions,
// an analysis with its principal variation drawn, the page's responsiveness while the engine
// thinks, and offline use. Screenshots go to $WUZI_WEB_OUT (target/web-test by default).
//   node tests/web/page.test.mjs [dist/web]
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import assert from 'node:assert/strict';

const root = process.argv[2] ?? 'dist/web';
const out = process.env.WUZI_WEB_OUT ?? 'target/web-test';
mkdirSync(out, { recursive: true });
const log = (...a) => console.log('[web]', ...a);

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** `python3 -m http.server -d ROOT`, as the README serves the page. */
async function serve(port) {
  const p = spawn('python3', ['-m', 'http.server', '-b', '127.0.0.1', '-d', root, String(port)], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/index.html`);
      return p;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the local server did not start');
}

async function until(page, fn, arg, timeout = 30000, what = String(fn)) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  } catch (e) {
    throw new Error(`waited ${timeout} ms for ${what}: ${e.message.split('\n')[0]}`);
  }
}

const stonesOf = (page) => page.$$eval('[data-stone]', (es) => es.map((e) => ({ p: e.dataset.stone, c: e.dataset.color })));

async function ready(page) {
  await until(page, () => document.body.dataset.engine === 'ready', null, 30000, 'the engine');
}

async function choose(page, id, value) {
  await page.selectOption(`#${id}`, value);
}

/**
 * Plays a whole game as black by clicking cells (the empty cell nearest the centre that is not
 * marked as a foul), checking that every engine move lands on an empty cell, until the page
 * announces a result. Returns the result text and the number of stones.
 */
async function playGame(page, rule, size, shot) {
  await choose(page, 'turn-time', '500');
  await choose(page, 'engine-side', 'white');
  await choose(page, 'size', String(size));
  await choose(page, 'rule', rule);
  await until(page, () => document.body.dataset.busy === '' && wuzi.game.moves.length === 0, null, 10000, 'a new game');
  const c = (size - 1) / 2;
  let known = [];
  for (let ply = 0; ply < size * size; ply += 2) {
    await until(page, () => document.body.dataset.busy === '' && wuzi.forbidReady, null, 30000, 'our turn');
    if (await page.evaluate(() => document.body.dataset.result)) break;
    const stones = await stonesOf(page);
    assert.equal(stones.length, known.length, 'no stone appears or vanishes between moves');
    const taken = new Set(stones.map((s) => s.p));
    const fouls = new Set(await page.$$eval('[data-forbid]', (es) => es.map((e) => e.dataset.forbid)));
    for (const f of fouls) assert.ok(!taken.has(f), `a foul mark on a stone at ${f}`);
    let pick = null;
    let bestD = Infinity;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const k = `${x},${y}`;
        const d = Math.hypot(x - c, y - c) + (x + 2 * y) * 1e-3;
        if (!taken.has(k) && !fouls.has(k) && d < bestD) { bestD = d; pick = k; }
      }
    }
    assert.ok(pick, 'a cell to play');
    await page.click(`[data-cell="${pick}"]`);
    await until(page, (n) => document.querySelectorAll('[data-stone]').length > n, stones.length, 5000, 'our stone');
    await until(page, () => document.body.dataset.busy === '', null, 30000, 'the engine to answer');
    const after = await stonesOf(page);
    const added = after.filter((s) => !taken.has(s.p));
    assert.ok(added.some((s) => s.p === pick && s.c === 'black'), `our stone at ${pick}`);
    const result = await page.evaluate(() => document.body.dataset.result);
    if (!result) {
      assert.equal(added.length, 2, `the engine answered with one stone (${JSON.stringify(added)})`);
      const reply = added.find((s) => s.p !== pick);
      assert.equal(reply.c, 'white', 'the engine plays white');
      const [x, y] = reply.p.split(',').map(Number);
      assert.ok(x >= 0 && y >= 0 && x < size && y < size, `the engine's move ${reply.p} is on the board`);
    }
    known = after;
    if (ply === 6 && shot) await page.screenshot({ path: `${out}/${shot}-midgame.png` });
  }
  const result = await page.evaluate(() => document.body.dataset.result);
  assert.ok(result, 'the game ended with a result');
  assert.ok(await page.isVisible('#result'), 'the result is announced on the page');
  const n = (await stonesOf(page)).length;
  if (shot) await page.screenshot({ path: `${out}/${shot}-end.png` });
  return { result, stones: n };
}

/**
 * Cases from tests/data/renju_forbidden.txt (15×15, black to move, checked by a second
 * reference): every foul point of the position (`expected`), or whether one point is a foul.
 */
function foulCases() {
  const text = readFileSync(new URL('../data/renju_forbidden.txt', import.meta.url), 'utf8');
  const cases = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('id=')) continue;
    const f = Object.fromEntries(line.split(' ').map((kv) => kv.split('=')).map(([k, ...v]) => [k, v.join('=')]));
    if (f.check !== 'agree' || f.size !== '15' || f.to_move !== 'black') continue;
    const pt = (s) => ({ x: s.charCodeAt(0) - 97, y: 15 - Number(s.slice(1)) });
    const list = (s) => (s === '-' ? [] : s.split(',').map(pt));
    const k = { id: f.id, black: list(f.black), white: list(f.white) };
    // BOARD/YXBOARD give stones as the mover's and the opponent's, and the engine tells the
    // colours by the counts: black to move with fewer black stones than white (a synthetic
    // diagram) reads as white to move, in every pbrain engine.
    if (k.black.length < k.white.length) continue;
    if (f.expect_all_forbidden) {
      k.expected = f.expect_all_forbidden === 'none' ? []
        : f.expect_all_forbidden.split(',').map((s) => pt(s.split(':')[0]));
    } else if (f.point && (f.expect === 'forbidden' || f.expect === 'legal')) {
      k.point = pt(f.point);
      k.foul = f.expect === 'forbidden';
    } else {
      continue;
    }
    cases.push(k);
  }
  return cases;
}

const sgfPoint = (p) => String.fromCharCode(97 + p.x) + String.fromCharCode(97 + p.y);

async function loadText(page, text) {
  await page.fill('#paste', text);
  await page.click('#load-paste');
}

async function main() {
  const port = await freePort();
  let server = await serve(port);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const url = `http://127.0.0.1:${port}/index.html`;
  try {
    await page.goto(url);
    await ready(page);
    log('page loaded, engine ready');

    // 1. A whole freestyle game on 15×15, then one under renju.
    const free = await playGame(page, 'freestyle', 15, 'freestyle');
    log(`freestyle game: ${free.result} after ${free.stones} stones`);
    const renju = await playGame(page, 'renju', 15, 'renju');
    log(`renju game: ${renju.result} after ${renju.stones} stones`);

    // 2. Renju foul marks where the test data says they are.
    const cases = foulCases();
    const whole = cases.filter((k) => k.expected).length;
    assert.ok(whole >= 15 && cases.length - whole >= 50, `renju cases: ${whole} whole sets, ${cases.length - whole} points`);
    let checked = 0;
    for (const k of cases) {
      const sgf = `(;GM[4]FF[4]SZ[15]RU[renju]AB${k.black.map((p) => `[${sgfPoint(p)}]`).join('')}`
        + (k.white.length ? `AW${k.white.map((p) => `[${sgfPoint(p)}]`).join('')}` : '') + 'PL[B])';
      await loadText(page, sgf);
      await until(page, (n) => wuzi.game.setup.length === n && wuzi.forbidReady, k.black.length + k.white.length, 10000, `the marks of ${k.id}`);
      const marks = (await page.$$eval('[data-forbid]', (es) => es.map((e) => e.dataset.forbid))).sort();
      if (k.expected) {
        const want = k.expected.map((p) => `${p.x},${p.y}`).sort();
        assert.deepEqual(marks, want, `foul marks of ${k.id}`);
      } else {
        assert.equal(marks.includes(`${k.point.x},${k.point.y}`), k.foul, `${k.id}: a mark at the point iff a foul`);
      }
      checked++;
      if (k.id === 'mintaka-10') await page.screenshot({ path: `${out}/renju-fouls-${k.id}.png` });
    }
    // Black (you, the engine plays nobody on a loaded position) plays a marked point: a foul,
    // and white wins.
    const foul = cases.find((k) => k.expected?.length);
    await loadText(page, `(;GM[4]FF[4]SZ[15]RU[renju]AB${foul.black.map((p) => `[${sgfPoint(p)}]`).join('')}`
      + (foul.white.length ? `AW${foul.white.map((p) => `[${sgfPoint(p)}]`).join('')}` : '') + 'PL[B])');
    await until(page, () => wuzi.forbidReady && document.querySelectorAll('[data-forbid]').length > 0, null, 10000, 'the marks');
    const f = foul.expected[0];
    await page.click(`[data-cell="${f.x},${f.y}"]`);
    await until(page, () => document.body.dataset.result !== '', null, 5000, 'the foul to be announced');
    const foulText = await page.textContent('#result');
    assert.match(foulText, /White wins: black played a forbidden point/);
    await page.screenshot({ path: `${out}/renju-foul-played.png` });
    log(`renju foul played by black at ${f.x},${f.y}: "${foulText}"`);

    log(`renju foul marks: all ${checked} positions as the data gives them (${whole} with every foul point, ${checked - whole} for one point)`);

    // A full board without five is a draw: 5×5, 24 stones loaded, the last cell clicked.
    await choose(page, 'rule', 'freestyle');
    await choose(page, 'size', '5');
    const colours = ['BBWWB', 'WWBBW', 'BBWWB', 'WWBBW', 'BBWWB'];
    const cellsOf = (c) => colours.flatMap((row, y) => [...row].map((v, x) => (v === c ? `${x},${y}` : null))).filter(Boolean);
    const [bs, ws] = [cellsOf('B'), cellsOf('W')];
    const last = bs.pop();
    const order = bs.flatMap((b, i) => [b, ws[i]]);
    await loadText(page, order.join(' '));
    await until(page, () => wuzi.game.moves.length === 24, null, 5000, 'the 5×5 record');
    await page.click(`[data-cell="${last}"]`);
    await until(page, () => document.body.dataset.result !== '', null, 5000, 'the draw');
    assert.equal(await page.textContent('#result'), 'Draw: the board is full');
    await page.screenshot({ path: `${out}/draw-5x5.png` });
    log('a full 5×5 board without five: "Draw: the board is full"');

    // 3. Analysis: "Think here" draws the principal variation as numbered ghost stones and
    //    lists the best lines; the page stays responsive while the engine thinks.
    await choose(page, 'size', '15');
    await loadText(page, '7,7 8,8 8,6 6,8 7,8');
    await until(page, () => wuzi.game.moves.length === 5 && document.body.dataset.busy === '', null, 10000, 'the loaded game');
    await choose(page, 'nbest', '3');
    await page.evaluate(() => {
      globalThis.maxGap = 0;
      let last = performance.now();
      globalThis.gapTimer = setInterval(() => {
        const now = performance.now();
        globalThis.maxGap = Math.max(globalThis.maxGap, now - last);
        last = now;
      }, 20);
    });
    await page.click('#think');
    await until(page, () => document.querySelectorAll('[data-ghost]').length >= 3 && document.querySelectorAll('#lines li').length >= 3,
      null, 20000, 'ghost stones and three lines');
    await page.waitForTimeout(1500);
    await page.click('details#record summary'); // the page answers clicks while the engine thinks
    await page.click('details#record summary');
    const gap = await page.evaluate(() => globalThis.maxGap);
    const ghosts = await page.$$eval('[data-ghost]', (es) => es.length);
    const lines = await page.$$eval('#lines li', (es) => es.map((e) => e.textContent));
    await page.screenshot({ path: `${out}/analysis.png` });
    assert.ok(gap < 250, `the page's timer never waited more than 250 ms (${gap.toFixed(0)} ms)`);
    await page.click('#stop');
    await until(page, () => document.body.dataset.busy === '', null, 5000, 'the analysis to stop');
    log(`analysis: ${ghosts} ghost stones, ${lines.length} lines (${lines[0]}), longest timer gap ${gap.toFixed(0)} ms`);

    // 4. Save and load: the SGF of a game loads back to the same moves.
    const sgf = await page.evaluate(async () => (await import('./game.js')).toSGF(wuzi.game));
    await loadText(page, sgf);
    await until(page, () => wuzi.game.moves.length === 5, null, 5000, 'the SGF to load');

    // 5. A phone's screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${out}/phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1200, height: 860 });

    // 6. Offline: with the server gone, the page and the engine load from the service worker,
    //    which also makes the page cross-origin isolated, so Stop reaches a search at once.
    await until(page, () => navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready.then(() => true), null, 10000, 'the service worker');
    server.kill();
    await new Promise((r) => setTimeout(r, 300));
    await page.reload();
    await ready(page);
    const isolated = await page.evaluate(() => globalThis.crossOriginIsolated && wuzi.engine.stopsAtOnce);
    await loadText(page, '7,7 8,8 8,6');
    await page.click('#think');
    await until(page, () => document.querySelectorAll('[data-ghost]').length >= 1, null, 20000, 'an offline analysis');
    await page.click('#stop');
    await until(page, () => document.body.dataset.busy === '', null, 5000, 'the offline analysis to stop');
    log(`offline: the page and the engine loaded with no server; cross-origin isolated: ${isolated}`);
    assert.ok(isolated, 'the service worker makes the page cross-origin isolated');
    await page.screenshot({ path: `${out}/offline.png` });

    assert.deepEqual(errors, [], 'no error in the page');
    log('all browser checks passed; screenshots in', out);
  } finally {
    await browser.close();
    server.kill();
  }
}

main().catch((e) => {
  console.error('[web] FAILED:', e.message);
  process.exit(1);
});

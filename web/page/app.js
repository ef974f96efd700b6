// The page: a small pbrain manager for the engine worker, a board to click, the engine's
// analysis drawn on it, and the game record. Game logic without the DOM is in game.js.
import {
  Game, BLACK, WHITE, other, RULES, winningLine, pointName, toSGF, parseSGF, toList, parseList,
} from './game.js';

const $ = (id) => document.getElementById(id);
/** `INFO max_memory` for the page: about 45 MB of hash table, fit for a phone. */
const MAX_MEMORY = 96 * 1024 * 1024;
/** How long "Think here" may run before it stops by itself. */
const ANALYSIS_MS = 10 * 60 * 1000;
const SIZES = Array.from({ length: 18 }, (_, i) => i + 5); // 5 to 22
const isMove = (line) => /^\d+,\d+$/.test(line);

// ---- the engine ---------------------------------------------------------------------------

/** The engine worker, spoken to in pbrain lines; answers are awaited in order. */
class Engine {
  constructor(onProgress, onState) {
    this.onProgress = onProgress;
    this.onState = onState;
    this.log = [];
    this.spawn();
  }

  spawn() {
    // With a shared flag a search stops at once; without one (a page that is not
    // cross-origin isolated) stopping means a new worker.
    this.stopBuffer = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function'
      ? new SharedArrayBuffer(4) : null;
    this.worker = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
    this.waiters = [];
    this.size = 0; // START not yet sent to this worker
    this.ready = false;
    this.worker.onmessage = (e) => this.message(e.data);
    this.worker.onerror = (e) => this.restart(`the engine failed: ${e.message ?? e}`);
    this.worker.postMessage({ init: true, stop: this.stopBuffer });
  }

  message(m) {
    if (m.ready) {
      this.ready = true;
      this.onState('ready');
      return;
    }
    if (m.crashed !== undefined || m.quit) {
      this.restart(`the engine stopped: ${m.crashed ?? 'END'}`);
      return;
    }
    const line = m.line;
    this.log.push(line);
    if (this.log.length > 2000) this.log.splice(0, 1000);
    const w = this.waiters[0];
    if (w && (w.match(line) || line.startsWith('ERROR'))) {
      this.waiters.shift();
      w.resolve(line);
      return;
    }
    this.onProgress(line);
  }

  send(lines) {
    for (const line of lines) {
      this.log.push(`> ${line}`);
      this.worker.postMessage({ line });
    }
  }

  /** Sends `lines` and resolves with the first line that `match`es (or an ERROR line). */
  request(lines, match) {
    return new Promise((resolve, reject) => {
      this.waiters.push({ match, resolve, reject });
      this.send(lines);
    });
  }

  get stopsAtOnce() {
    return this.stopBuffer !== null;
  }

  /** Ends the running search: its answer comes at once, or (no shared flag) the worker is
   * replaced and the pending requests fail. */
  stop() {
    if (this.stopBuffer) Atomics.store(new Int32Array(this.stopBuffer), 0, 1);
    else this.restart('stopped');
  }

  restart(why) {
    this.worker.terminate();
    const waiters = this.waiters;
    this.spawn();
    for (const w of waiters) w.reject(new Error(why));
    if (why !== 'stopped') this.onState('restarted', why);
  }
}

// ---- state --------------------------------------------------------------------------------

let game = new Game(15, 'freestyle');
let redo = [];
let result = null; // {text, line}
let engineSide = WHITE;
/** The running search: {kind: 'play' | 'analyse', token}. */
let busy = null;
let token = 0;
/** "Think here" keeps analysing each new position until Stop. */
let analysisOn = false;
/** Black's renju foul points for the position `forbid.key`. */
let forbid = { key: '', points: new Set() };
/** The latest analysis: its position's key and lines (`{depth, score, winrate, pv}`). */
let analysis = { key: '', lines: [], done: [] };
let infoBlock = null;
let engine;

const posKey = () => `${game.size}|${game.rule}|` + game.stones().map((s) => `${s.x},${s.y}`).join(' ');

function settingsLines(turnMs) {
  const lines = [];
  if (engine.size !== game.size) {
    lines.push(`START ${game.size}`);
    engine.size = game.size;
  }
  lines.push(
    `INFO max_memory ${MAX_MEMORY}`,
    'INFO timeout_match 0',
    `INFO timeout_turn ${turnMs}`,
    `INFO rule ${RULES[game.rule]}`,
    `INFO strength ${$('strength').value}`,
    'INFO show_detail 2',
  );
  return lines;
}

/** The position as a BOARD or YXBOARD block: own stones (the side to move) are field 1. */
function positionLines(command) {
  const me = game.toMove();
  const stones = game.stones().map((s) => `${s.x},${s.y},${s.color === me ? 1 : 2}`);
  return [command, ...stones, 'DONE'];
}

// ---- the engine's turns -------------------------------------------------------------------

async function engineMove() {
  const mine = ++token;
  busy = { kind: 'play', token: mine };
  const key = posKey();
  refresh();
  const turnMs = Number($('turn-time').value);
  let answer = null;
  try {
    answer = await engine.request([...settingsLines(turnMs), ...positionLines('BOARD')], isMove);
  } catch {
    // The worker was replaced to stop it: play the best move it had reported.
    answer = analysis.key === key && analysis.lines[0]?.pv[0];
  }
  if (busy?.token !== mine) return;
  busy = null;
  const [x, y] = String(answer).split(',').map(Number);
  if (!isMove(String(answer)) || !game.isEmpty(x, y)) {
    if (answer && String(answer).startsWith('ERROR')) note(`Wuzi: ${answer}`);
    // No move yet (stopped before its first iteration): ask again, briefly.
    if (!answer || !String(answer).startsWith('ERROR')) return engineMoveQuick();
    refresh();
    return;
  }
  play({ x, y });
}

async function engineMoveQuick() {
  const mine = ++token;
  busy = { kind: 'play', token: mine };
  let answer;
  try {
    answer = await engine.request([...settingsLines(200), ...positionLines('BOARD')], isMove);
  } catch {
    answer = null;
  }
  if (busy?.token !== mine) return;
  busy = null;
  const [x, y] = String(answer).split(',').map(Number);
  if (isMove(String(answer)) && game.isEmpty(x, y)) play({ x, y });
  else refresh();
}

async function analyse() {
  const mine = ++token;
  busy = { kind: 'analyse', token: mine };
  refresh();
  const n = Number($('nbest').value);
  try {
    await engine.request(
      [...settingsLines(ANALYSIS_MS), ...positionLines('YXBOARD'), `YXNBEST ${n}`], isMove);
  } catch {
    // stopped by a new worker
  }
  if (busy?.token === mine) busy = null;
  refresh();
}

/** Stops whatever the engine is doing; its answer, when it comes, is not used. */
function cancel() {
  if (!busy) return;
  busy = null;
  engine.stop();
}

async function refreshForbid() {
  if (game.rule !== 'renju') {
    forbid = { key: '', points: new Set() };
    return forbid;
  }
  const key = posKey();
  if (forbid.key === key) return forbid;
  let line = '';
  try {
    line = await engine.request(
      [...settingsLines(Number($('turn-time').value)), ...positionLines('YXBOARD'), 'YXSHOWFORBID'],
      (l) => l.startsWith('FORBID'));
  } catch {
    return forbid;
  }
  const points = new Set();
  const digits = line.replace(/^FORBID\s*/, '').replace(/\.$/, '');
  for (let i = 0; i + 4 <= digits.length; i += 4) {
    points.add(`${Number(digits.slice(i, i + 2))},${Number(digits.slice(i + 2, i + 4))}`);
  }
  if (key === posKey()) {
    forbid = { key, points };
    refresh();
  }
  return forbid;
}

/** What to do once the position has changed: marks, then the engine's move or analysis. */
function afterChange() {
  refresh();
  const renju = game.rule === 'renju' ? refreshForbid() : null;
  if (result) return;
  if (engineSide === game.toMove()) {
    engineMove();
  } else if (analysisOn) {
    Promise.resolve(renju).then(() => { if (!busy && analysisOn && !result) analyse(); });
  }
}

// ---- moves --------------------------------------------------------------------------------

function judge(move, color) {
  const line = winningLine(game.grid(), game.rule, move.x, move.y, color);
  const name = color === BLACK ? 'Black' : 'White';
  if (line) return { text: `${name} wins: five in a row`, line };
  if (game.stones().length === game.size * game.size) return { text: 'Draw: the board is full', line: null };
  return null;
}

function play(move) {
  const color = game.toMove();
  game.moves.push(move);
  result = judge(move, color);
  afterChange();
}

async function onCell(x, y) {
  if (result || busy?.kind === 'play' || !game.isEmpty(x, y)) return;
  const color = game.toMove();
  if (engineSide === color) return;
  if (busy) cancel();
  redo = [];
  if (game.rule === 'renju' && color === BLACK) {
    const f = await refreshForbid();
    if (!game.isEmpty(x, y) || game.toMove() !== color) return;
    if (f.points.has(`${x},${y}`) && !winningLine(withStone(x, y, BLACK), 'renju', x, y, BLACK)) {
      game.moves.push({ x, y });
      result = { text: 'White wins: black played a forbidden point', line: null, foul: { x, y } };
      afterChange();
      return;
    }
  }
  play({ x, y });
}

function withStone(x, y, color) {
  const g = game.grid();
  g[y][x] = color;
  return g;
}

/** Replays the record's moves to find its result (a loaded or redone game). */
function rejudge() {
  result = null;
  const moves = game.moves;
  game.moves = [];
  for (const m of moves) {
    const c = game.toMove();
    game.moves.push(m);
    result = judge(m, c);
    if (result) break;
  }
  if (result && game.moves.length < moves.length) game.moves = moves; // keep the record
}

function undo() {
  cancel();
  if (!game.moves.length) return;
  redo.push(game.moves.pop());
  if (engineSide !== 'none' && game.toMove() === engineSide && game.moves.length) {
    redo.push(game.moves.pop());
  }
  result = null;
  afterChange();
}

function redoMove() {
  cancel();
  if (!redo.length) return;
  game.moves.push(redo.pop());
  if (engineSide !== 'none' && game.toMove() === engineSide && redo.length) game.moves.push(redo.pop());
  rejudge();
  afterChange();
}

function newGame() {
  cancel();
  game = new Game(Number($('size').value), $('rule').value);
  redo = [];
  result = null;
  analysis = { key: '', lines: [], done: [] };
  buildBoard();
  afterChange();
}

function swap() {
  cancel();
  engineSide = engineSide === game.toMove() ? other(game.toMove()) : game.toMove();
  $('engine-side').value = engineSide;
  afterChange();
}

function load(text) {
  try {
    let loaded;
    if (text.trim().startsWith('(')) {
      const { game: g, rule } = parseSGF(text);
      loaded = g;
      loaded.rule = rule ?? $('rule').value;
    } else {
      loaded = parseList(text, Number($('size').value));
      loaded.rule = $('rule').value;
    }
    cancel();
    game = loaded;
    $('size').value = String(game.size);
    $('rule').value = game.rule;
    engineSide = 'none';
    $('engine-side').value = 'none';
    redo = [];
    rejudge();
    buildBoard();
    note(`Loaded ${game.moves.length} moves${game.setup.length ? ` and ${game.setup.length} set-up stones` : ''}.`);
    afterChange();
  } catch (e) {
    note(`Cannot load: ${e.message}`);
  }
}

function download(name, text) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function note(text) {
  $('note').textContent = text;
}

// ---- analysis lines -----------------------------------------------------------------------

function onProgress(line) {
  const key = busyKey();
  if (line.startsWith('INFO ')) {
    const [, name, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (name === 'PV' && value !== 'DONE') infoBlock = { index: Number(value) };
    else if (!infoBlock) return;
    else if (name === 'NUMPV') infoBlock.lines = Number(value);
    else if (name === 'DEPTH') infoBlock.depth = Number(value);
    else if (name === 'EVAL') infoBlock.score = value;
    else if (name === 'WINRATE') infoBlock.winrate = Number(value);
    else if (name === 'BESTLINE') infoBlock.pv = value.split(' ').filter(Boolean);
    else if (name === 'PV' && value === 'DONE') {
      const b = infoBlock;
      infoBlock = null;
      if (!b.pv || key === null) return;
      if (analysis.key !== key) analysis = { key, lines: [], done: [] };
      // An iteration's lines come best first: a new line 1 starts a new set, shown with the
      // last complete set's other lines until its own arrive.
      if (b.index === 0) analysis.current = [];
      if (!analysis.current) return;
      analysis.current[b.index] = b;
      const n = b.lines ?? 1;
      if (b.index + 1 >= n) analysis.done = analysis.current.filter(Boolean);
      const firsts = new Set(analysis.current.filter(Boolean).map((l) => l.pv[0]));
      analysis.lines = [...analysis.current.filter(Boolean),
        ...analysis.done.filter((l) => !firsts.has(l.pv[0]))].slice(0, n);
      refresh();
    }
  }
}

/** The key of the position the engine is searching, or null when it is idle. */
function busyKey() {
  return busy ? posKey() : null;
}

function scoreText(score, toMove) {
  if (score === undefined) return '–';
  const side = toMove === BLACK ? 'black' : 'white';
  const m = /^([+-])M(\d+)$/.exec(score);
  if (m) {
    const winner = m[1] === '+' ? side : (side === 'black' ? 'white' : 'black');
    return `${winner} wins in ${Math.ceil(Number(m[2]) / 2)} moves`;
  }
  // The side that is better, with how much (the engine's score is the side to move's).
  const v = Number(score);
  if (v === 0) return 'even';
  return `+${Math.abs(v)} for ${v > 0 ? side : (side === 'black' ? 'white' : 'black')}`;
}

// ---- drawing ------------------------------------------------------------------------------

const SVG = 'http://www.w3.org/2000/svg';
const CELL = 32;
const MARGIN = 32;
const at = (i) => MARGIN + i * CELL;

function el(name, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.append(e);
  return e;
}

let layer = null;

function buildBoard() {
  const n = game.size;
  const svg = $('board');
  const side = 2 * MARGIN + (n - 1) * CELL;
  svg.setAttribute('viewBox', `0 0 ${side} ${side}`);
  // Small boards stay small: their stones would otherwise fill a desktop screen.
  $('board-area').style.setProperty('--board-max', `${Math.round(side * 1.5)}px`);
  svg.replaceChildren();
  const grid = el('g', { class: 'grid' }, svg);
  for (let i = 0; i < n; i++) {
    el('line', { x1: at(0), y1: at(i), x2: at(n - 1), y2: at(i) }, grid);
    el('line', { x1: at(i), y1: at(0), x2: at(i), y2: at(n - 1) }, grid);
    el('text', { class: 'label', x: at(i), y: MARGIN / 2 - 5 }, svg, String.fromCharCode(97 + i));
    el('text', { class: 'label', x: MARGIN / 2 - 6, y: at(i) }, svg, String(n - i));
  }
  if (n >= 9) {
    const c = (n - 1) / 2;
    const d = n >= 13 ? 3 : 2;
    const stars = Number.isInteger(c) ? [[c, c]] : [];
    for (const sx of [d, n - 1 - d]) for (const sy of [d, n - 1 - d]) stars.push([sx, sy]);
    for (const [sx, sy] of stars) el('circle', { class: 'star', cx: at(sx), cy: at(sy), r: 3 }, grid);
  }
  layer = el('g', {}, svg);
  const cells = el('g', {}, svg);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const r = el('rect', {
        class: 'cell', x: at(x) - CELL / 2, y: at(y) - CELL / 2, width: CELL, height: CELL,
        'data-cell': `${x},${y}`, role: 'gridcell', 'aria-label': pointName(n, x, y),
      }, cells);
      r.addEventListener('click', () => onCell(x, y));
    }
  }
}

function refresh() {
  if (!layer) buildBoard();
  layer.replaceChildren();
  const stones = game.stones();
  const numbered = game.setup.length;
  stones.forEach((s, i) => {
    el('circle', {
      class: `stone ${s.color}`, cx: at(s.x), cy: at(s.y), r: CELL * 0.45, 'data-stone': `${s.x},${s.y}`,
      'data-color': s.color,
    }, layer);
    if (i >= numbered) {
      el('text', { class: `move-num on-${s.color}`, x: at(s.x), y: at(s.y) }, layer, String(i - numbered + 1));
    }
  });
  const last = game.moves.at(-1);
  if (last) el('circle', { class: 'last', cx: at(last.x), cy: at(last.y), r: CELL * 0.47 }, layer);
  for (const p of forbid.key === posKey() ? forbid.points : []) {
    const [x, y] = p.split(',').map(Number);
    if (!game.isEmpty(x, y)) continue;
    const g = el('g', { 'data-forbid': p }, layer);
    const d = CELL * 0.22;
    el('line', { class: 'forbid', x1: at(x) - d, y1: at(y) - d, x2: at(x) + d, y2: at(y) + d }, g);
    el('line', { class: 'forbid', x1: at(x) - d, y1: at(y) + d, x2: at(x) + d, y2: at(y) - d }, g);
  }
  if (result?.line) {
    for (const c of result.line) el('circle', { class: 'win', cx: at(c.x), cy: at(c.y), r: CELL * 0.5 }, layer);
  }
  drawAnalysis();
  refreshPanel();
}

function drawAnalysis() {
  const lines = analysis.key === posKey() ? analysis.lines.filter(Boolean) : [];
  const toMove = game.toMove();
  const best = lines[0];
  if (best && $('show-pv').checked && !result) {
    const taken = new Set(game.stones().map((s) => `${s.x},${s.y}`));
    let c = toMove;
    best.pv.forEach((m, i) => {
      if (taken.has(m)) return;
      taken.add(m);
      const [x, y] = m.split(',').map(Number);
      const g = el('g', { 'data-ghost': m }, layer);
      el('circle', { class: `stone ghost ${c}`, cx: at(x), cy: at(y), r: CELL * 0.42 }, g);
      el('text', { class: `ghost-num on-${c}`, x: at(x), y: at(y) }, g, String(i + 1));
      c = other(c);
    });
    lines.slice(1).forEach((l, i) => {
      const m = l.pv[0];
      if (!m || taken.has(m)) return;
      const [x, y] = m.split(',').map(Number);
      el('circle', { class: 'alt', cx: at(x), cy: at(y), r: CELL * 0.38, 'data-alt': m }, layer);
      el('text', { class: 'alt-num', x: at(x) + CELL * 0.3, y: at(y) - CELL * 0.22 }, layer, String(i + 2));
    });
  }
  $('depth').textContent = best ? `depth ${best.depth}` : 'No analysis yet';
  $('score').textContent = best ? ` · ${scoreText(best.score, toMove)}` : '';
  const black = best?.winrate === undefined ? 0.5 : (toMove === BLACK ? best.winrate : 1 - best.winrate);
  $('winbar-black').style.width = `${(black * 100).toFixed(1)}%`;
  $('winbar').title = best ? `Black ${(black * 100).toFixed(0)} %, white ${(100 - black * 100).toFixed(0)} %` : '';
  const ol = $('lines');
  ol.replaceChildren();
  for (const l of lines) {
    const li = document.createElement('li');
    const names = l.pv.map((m) => {
      const [x, y] = m.split(',').map(Number);
      return pointName(game.size, x, y);
    });
    li.textContent = `${scoreText(l.score, toMove)} (d${l.depth}): ${names.join(' ')}`;
    ol.append(li);
  }
}

function refreshPanel() {
  const toMove = game.toMove();
  const you = engineSide === 'none' ? 'analysis board' : (engineSide === toMove ? 'Wuzi' : 'you');
  $('turn').textContent = result ? '' : `${toMove === BLACK ? 'Black' : 'White'} to move (${you})`;
  $('engine-busy').hidden = !busy;
  $('engine-busy').textContent = busy?.kind === 'analyse' ? 'Wuzi is analysing…' : 'Wuzi is thinking…';
  const r = $('result');
  r.hidden = !result;
  r.textContent = result?.text ?? '';
  document.body.dataset.result = result ? result.text : '';
  document.body.dataset.busy = busy ? busy.kind : '';
  $('undo').disabled = game.moves.length === 0;
  $('redo').disabled = redo.length === 0;
  $('think').disabled = Boolean(result) || busy?.kind === 'play';
  $('stop').disabled = !busy;
  $('stop').textContent = busy?.kind === 'play' ? 'Move now' : 'Stop';
  const ol = $('moves');
  ol.replaceChildren();
  game.moves.forEach((m) => {
    const li = document.createElement('li');
    li.textContent = pointName(game.size, m.x, m.y);
    ol.append(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

// ---- wiring -------------------------------------------------------------------------------

function start() {
  for (const n of SIZES) $('size').append(new Option(`${n}×${n}`, String(n), n === 15, n === 15));
  engine = new Engine(onProgress, (state, why) => {
    if (state === 'ready') {
      $('status').textContent = engine.stopsAtOnce
        ? 'Engine ready (runs in this page, offline too)'
        : 'Engine ready (runs in this page; Stop restarts it)';
      document.body.dataset.engine = 'ready';
    } else {
      note(why);
      busy = null;
      afterChange();
    }
  });
  $('board').addEventListener('contextmenu', (e) => e.preventDefault());
  $('new-game').onclick = newGame;
  $('undo').onclick = undo;
  $('redo').onclick = redoMove;
  $('swap').onclick = swap;
  $('think').onclick = () => {
    analysisOn = true;
    if (!busy) analyse();
  };
  $('stop').onclick = () => {
    analysisOn = false;
    if (busy?.kind === 'play') engine.stop(); // its answer is played
    else cancel();
    refresh();
  };
  $('rule').onchange = newGame;
  $('size').onchange = newGame;
  $('engine-side').onchange = () => {
    cancel();
    engineSide = $('engine-side').value;
    afterChange();
  };
  $('strength').oninput = () => { $('strength-value').textContent = $('strength').value; };
  $('show-pv').onchange = refresh;
  $('nbest').onchange = () => { if (busy?.kind === 'analyse') { cancel(); analyse(); } };
  $('save-sgf').onclick = () => download('wuzi-game.sgf', toSGF(game, {
    black: engineSide === BLACK ? 'Wuzi' : 'Player', white: engineSide === WHITE ? 'Wuzi' : 'Player',
    result: result ? result.text : '',
  }));
  $('save-list').onclick = () => download('wuzi-game.txt', toList(game));
  $('load').onchange = async (e) => {
    const file = e.target.files[0];
    if (file) load(await file.text());
    e.target.value = '';
  };
  $('load-paste').onclick = () => load($('paste').value);
  buildBoard();
  afterChange();
  // Offline use, and the cross-origin isolation that lets Stop act at once.
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }
  // For tests and the curious: the record, the engine, and whether the foul marks are current.
  globalThis.wuzi = {
    get game() { return game; },
    get engine() { return engine; },
    get analysis() { return analysis; },
    get forbidReady() { return game.rule !== 'renju' || forbid.key === posKey(); },
  };
}

start();

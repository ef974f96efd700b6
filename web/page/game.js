// The page's game record and referee, with no DOM and no engine: who is to move, whether a
// move ends the game under each rule, and SGF / `x,y` list text. Coordinates are the
// protocol's: x the column from the left, y the row from the top, both from 0.

/** `INFO rule` values. */
export const RULES = { freestyle: 0, standard: 1, renju: 4, caro: 8 };
export const RULE_NAMES = { freestyle: 'Freestyle', standard: 'Standard (exact five)', renju: 'Renju', caro: 'Caro' };

export const BLACK = 'black';
export const WHITE = 'white';
export const other = (c) => (c === BLACK ? WHITE : BLACK);

const DIRS = [[1, 0], [0, 1], [1, 1], [1, -1]];

/** A game: a board size, set-up stones, and moves (each `{x, y}`), black first unless set up. */
export class Game {
  constructor(size, rule = 'freestyle') {
    this.size = size;
    this.rule = rule;
    /** Stones placed before the game (`{x, y, color}`), e.g. a loaded position. */
    this.setup = [];
    /** Who moves first after the set-up stones. */
    this.first = BLACK;
    this.moves = [];
  }

  /** Every stone in order: the set-up ones (black first), then the moves with colours. */
  stones() {
    const set = [...this.setup].sort((a, b) => (a.color === b.color ? 0 : a.color === BLACK ? -1 : 1));
    let c = this.first;
    const played = this.moves.map((m) => {
      const s = { x: m.x, y: m.y, color: c };
      c = other(c);
      return s;
    });
    return [...set, ...played];
  }

  toMove() {
    return this.moves.length % 2 === 0 ? this.first : other(this.first);
  }

  /** A size×size array of null / 'black' / 'white'. */
  grid() {
    const g = Array.from({ length: this.size }, () => Array(this.size).fill(null));
    for (const s of this.stones()) g[s.y][s.x] = s.color;
    return g;
  }

  isEmpty(x, y) {
    return x >= 0 && y >= 0 && x < this.size && y < this.size && this.grid()[y][x] === null;
  }
}

/** Colour to move first after set-up stones: black unless black has one stone more. */
export function firstAfterSetup(setup) {
  const b = setup.filter((s) => s.color === BLACK).length;
  const w = setup.length - b;
  return b === w + 1 ? WHITE : BLACK;
}

/**
 * Whether the stone of `color` just played at (x, y) on `grid` makes a winning line under
 * `rule` (shared/protocol.md §10); the cells of that line, or null. A renju foul is the
 * engine's to find (YXSHOWFORBID): here black's overline only does not win.
 */
export function winningLine(grid, rule, x, y, color) {
  const size = grid.length;
  const at = (i, j) => (i >= 0 && j >= 0 && i < size && j < size ? grid[j][i] : undefined);
  for (const [dx, dy] of DIRS) {
    const cells = [{ x, y }];
    let i = x + dx, j = y + dy;
    while (at(i, j) === color) { cells.push({ x: i, y: j }); i += dx; j += dy; }
    const after = at(i, j);
    i = x - dx; j = y - dy;
    while (at(i, j) === color) { cells.unshift({ x: i, y: j }); i -= dx; j -= dy; }
    const before = at(i, j);
    const n = cells.length;
    if (n < 5) continue;
    const opp = other(color);
    let wins;
    switch (rule) {
      case 'standard': wins = n === 5; break;
      case 'renju': wins = color === WHITE || n === 5; break;
      // The board's edge never blocks; an overline wins even when blocked.
      case 'caro': wins = n > 5 || !(before === opp && after === opp); break;
      default: wins = true;
    }
    if (wins) return cells;
  }
  return null;
}

/** Renju-style name of a point: column letter from a, row number from 1 at the bottom. */
export function pointName(size, x, y) {
  return String.fromCharCode(97 + x) + String(size - y);
}

/** Parses a point name (`h8`) on a board of `size`; null if it is not one. */
export function parsePointName(size, name) {
  const m = /^([a-z])(\d+)$/.exec(name.trim().toLowerCase());
  if (!m) return null;
  const x = m[1].charCodeAt(0) - 97;
  const y = size - Number(m[2]);
  return x < size && y >= 0 && y < size ? { x, y } : null;
}

// ---- SGF ----------------------------------------------------------------------------------

const sgfPoint = (p) => String.fromCharCode(97 + p.x) + String.fromCharCode(97 + p.y);

/** The game as SGF (FF[4], GM[4]); RU holds our rule name, AB/AW the set-up stones. */
export function toSGF(game, names = {}) {
  let s = `(;FF[4]GM[4]CA[UTF-8]AP[Wuzi]SZ[${game.size}]RU[${game.rule}]`;
  if (names.black) s += `PB[${names.black}]`;
  if (names.white) s += `PW[${names.white}]`;
  if (names.result) s += `RE[${names.result}]`;
  const b = game.setup.filter((p) => p.color === BLACK);
  const w = game.setup.filter((p) => p.color === WHITE);
  if (b.length) s += 'AB' + b.map((p) => `[${sgfPoint(p)}]`).join('');
  if (w.length) s += 'AW' + w.map((p) => `[${sgfPoint(p)}]`).join('');
  if (game.setup.length) s += `PL[${game.first === BLACK ? 'B' : 'W'}]`;
  let c = game.first;
  for (const m of game.moves) {
    s += `;${c === BLACK ? 'B' : 'W'}[${sgfPoint(m)}]`;
    c = other(c);
  }
  return s + ')\n';
}

/**
 * Reads the main line of an SGF game: size, rule (our RU names), set-up stones, moves.
 * Throws an Error saying what is wrong.
 */
export function parseSGF(text) {
  const start = text.indexOf('(');
  if (start < 0) throw new Error('not an SGF game: no "("');
  const props = [];
  let i = start + 1;
  let node = -1;
  let depth = 1;
  while (i < text.length && depth > 0) {
    const ch = text[i];
    if (ch === ';') { node++; i++; continue; }
    if (ch === '(') { depth++; i++; continue; }
    if (ch === ')') { depth--; i++; if (depth === 1) break; continue; }
    const m = /^[A-Z]+/.exec(text.slice(i, i + 16));
    if (m && depth === 1) {
      i += m[0].length;
      const values = [];
      while (true) {
        while (/\s/.test(text[i] ?? '')) i++;
        if (text[i] !== '[') break;
        let v = '';
        i++;
        while (i < text.length && text[i] !== ']') {
          if (text[i] === '\\') i++;
          v += text[i++];
        }
        i++;
        values.push(v);
      }
      props.push({ node, id: m[0], values });
      continue;
    }
    i++;
  }
  const get = (id) => props.find((p) => p.id === id)?.values[0];
  const size = Number((get('SZ') ?? '15').split(':')[0]);
  if (!(size >= 5 && size <= 26)) throw new Error(`board size ${get('SZ')} is not 5 to 26`);
  const ru = (get('RU') ?? '').toLowerCase();
  const rule = Object.keys(RULES).find((r) => ru.startsWith(r)) ?? null;
  const point = (v) => {
    if (v === '' || v === 'tt') return null; // a pass
    const x = v.charCodeAt(0) - 97, y = v.charCodeAt(1) - 97;
    if (!(x >= 0 && y >= 0 && x < size && y < size)) throw new Error(`point [${v}] is off the ${size}×${size} board`);
    return { x, y };
  };
  const game = new Game(size, rule ?? 'freestyle');
  for (const p of props) {
    if (p.id === 'AB' || p.id === 'AW') {
      for (const v of p.values) {
        const q = point(v);
        if (q) game.setup.push({ ...q, color: p.id === 'AB' ? BLACK : WHITE });
      }
    }
  }
  game.first = firstAfterSetup(game.setup);
  const pl = get('PL');
  if (pl) game.first = pl.toUpperCase() === 'W' ? WHITE : BLACK;
  const seen = new Set(game.setup.map((s) => `${s.x},${s.y}`));
  for (const p of props) {
    if (p.id !== 'B' && p.id !== 'W') continue;
    const q = point(p.values[0] ?? '');
    if (!q) continue;
    const expected = game.toMove() === BLACK ? 'B' : 'W';
    if (p.id !== expected) throw new Error(`move ${game.moves.length + 1} is ${p.id} but ${expected} is to move`);
    const key = `${q.x},${q.y}`;
    if (seen.has(key)) throw new Error(`move ${game.moves.length + 1} at [${sgfPoint(q)}] is on a stone`);
    seen.add(key);
    game.moves.push(q);
  }
  return { game, rule };
}

// ---- x,y lists ----------------------------------------------------------------------------

/** The moves as `x,y` lines (the protocol's coordinates), black first. */
export function toList(game) {
  return game.stones().map((s) => `${s.x},${s.y}`).join('\n') + '\n';
}

/** Reads `x,y` moves separated by blanks, new lines or semicolons, played alternately. */
export function parseList(text, size) {
  const game = new Game(size);
  const seen = new Set();
  for (const tok of text.split(/[\s;]+/).filter(Boolean)) {
    const m = /^(\d+),(\d+)$/.exec(tok);
    if (!m) throw new Error(`"${tok}" is not x,y`);
    const x = Number(m[1]), y = Number(m[2]);
    if (x >= size || y >= size) throw new Error(`${tok} is off the ${size}×${size} board`);
    if (seen.has(tok)) throw new Error(`${tok} is played twice`);
    seen.add(tok);
    game.moves.push({ x, y });
  }
  return game;
}

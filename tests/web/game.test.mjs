// The page's referee and record (web/page/game.js) under Node's test runner:
//   node --test tests/web/
// Win detection against tests/data/rules_win_detection.txt (every rule), caro's blocked five,
// and SGF / x,y lists read back as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Game, BLACK, WHITE, winningLine, parseSGF, toSGF, toList, parseList, pointName, parsePointName,
} from '../../web/page/game.js';

function cases() {
  const text = readFileSync(new URL('../data/rules_win_detection.txt', import.meta.url), 'utf8');
  return text.split('\n').filter((l) => l.startsWith('id=')).map((line) => {
    const f = Object.fromEntries(line.split(' ').map((kv) => kv.split('=')).map(([k, ...v]) => [k, v.join('=')]));
    const size = Number(f.size);
    const list = (s) => (s === '-' ? [] : s.split(',').map((p) => parsePointName(size, p)));
    return { ...f, size, black: list(f.black), white: list(f.white), move: parsePointName(size, f.move) };
  });
}

test('win detection agrees with the shared cases of every rule', () => {
  let checked = 0;
  for (const c of cases()) {
    if (c.check !== 'agree') continue;
    const grid = Array.from({ length: c.size }, () => Array(c.size).fill(null));
    for (const p of c.black) grid[p.y][p.x] = BLACK;
    for (const p of c.white) grid[p.y][p.x] = WHITE;
    const mover = c.to_move === 'white' ? WHITE : BLACK;
    grid[c.move.y][c.move.x] = mover;
    const wins = winningLine(grid, c.rule, c.move.x, c.move.y, mover) !== null;
    // A renju foul (mover_loses) is the engine's to find: the referee only sees no five.
    const expected = c.expect === 'mover_wins';
    assert.equal(wins, expected, `${c.id}: ${c.expect}`);
    checked++;
  }
  assert.ok(checked >= 30, `${checked} cases`);
});

test('caro: a five blocked at both ends does not win, the board edge blocks nothing', () => {
  const grid = Array.from({ length: 15 }, () => Array(15).fill(null));
  for (let x = 1; x <= 5; x++) grid[7][x] = BLACK;
  grid[7][0] = WHITE;
  grid[7][6] = WHITE;
  assert.equal(winningLine(grid, 'caro', 3, 7, BLACK), null);
  grid[7][6] = null;
  assert.ok(winningLine(grid, 'caro', 3, 7, BLACK));
  const edge = Array.from({ length: 15 }, () => Array(15).fill(null));
  for (let x = 0; x < 5; x++) edge[2][x] = BLACK;
  edge[2][5] = WHITE;
  assert.ok(winningLine(edge, 'caro', 0, 2, BLACK), 'the edge is not a blocker');
});

test('standard: an overline does not win; freestyle: it does', () => {
  const grid = Array.from({ length: 15 }, () => Array(15).fill(null));
  for (let x = 2; x < 8; x++) grid[4][x] = WHITE;
  assert.equal(winningLine(grid, 'standard', 4, 4, WHITE), null);
  assert.equal(winningLine(grid, 'freestyle', 4, 4, WHITE).length, 6);
  assert.equal(winningLine(grid, 'renju', 4, 4, WHITE).length, 6, "white's overline wins in renju");
});

test('SGF and x,y lists read back as written, set-up stones included', () => {
  const g = new Game(20, 'renju');
  g.setup = [{ x: 1, y: 2, color: BLACK }, { x: 3, y: 4, color: WHITE }, { x: 5, y: 5, color: BLACK }];
  g.first = WHITE;
  g.moves = [{ x: 10, y: 10 }, { x: 19, y: 0 }, { x: 0, y: 19 }];
  const { game: back, rule } = parseSGF(toSGF(g, { black: 'A', white: 'B' }));
  assert.equal(rule, 'renju');
  assert.equal(back.size, 20);
  assert.deepEqual(back.stones(), g.stones());
  const list = parseList(toList(new Game(15)), 15);
  assert.equal(list.moves.length, 0);
  const played = parseList('7,7 8,8;6,6\n9,9', 15);
  assert.deepEqual(played.moves, [{ x: 7, y: 7 }, { x: 8, y: 8 }, { x: 6, y: 6 }, { x: 9, y: 9 }]);
  assert.equal(toList(played), '7,7\n8,8\n6,6\n9,9\n');
  assert.equal(played.toMove(), BLACK);
});

test('bad records are refused with a reason', () => {
  assert.throws(() => parseList('7,7 7,7', 15), /twice/);
  assert.throws(() => parseList('15,0', 15), /off the/);
  assert.throws(() => parseList('a1', 15), /not x,y/);
  assert.throws(() => parseSGF('(;SZ[15];B[hh];B[ii])'), /W is to move/);
  assert.throws(() => parseSGF('(;SZ[15];B[hh];W[hh])'), /on a stone/);
  assert.throws(() => parseSGF('no game'), /not an SGF/);
});

test('point names: h8 is the centre of 15×15', () => {
  assert.equal(pointName(15, 7, 7), 'h8');
  assert.deepEqual(parsePointName(15, 'a15'), { x: 0, y: 0 });
  assert.equal(parsePointName(15, 'p1'), null);
});

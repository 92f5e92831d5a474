// SPDX-License-Identifier: MIT
// The HTML pictures in headless chromium (puppeteer-core over the Debian
// browser): a screenshot of every page, no console errors or page errors
// anywhere, and the page's behaviour: hovering a named square shows its
// name and coordinates, selecting a diagnostic highlights its square,
// hovering a feature of a played game shows its score items; on a tile
// sheet, hovering a feature describes it and a selected tile shows its
// four rotations; on a heatmap, hovering a value shows it with its
// interval.
// usage: node browser.js DIR SHOTS   (DIR/*.html and DIR/extra/*.html)
'use strict';
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

const dir = process.argv[2], shots = process.argv[3];
let failed = 0;
function fail(msg) { console.log('FAIL ' + msg); failed = 1; }

// Client coordinates of the middle of square (x,y), scrolled into view.
async function squarePoint(page, x, y) {
  return page.evaluate((x, y) => {
    const D = JSON.parse(document.getElementById('cm-data').textContent);
    const svg = document.getElementById('cm-map'), view = document.getElementById('view');
    const at = () => {
      const p = svg.createSVGPoint();
      p.x = D.ox + x * D.cell + D.cell / 2;
      p.y = D.oy + y * D.cell + D.cell / 2;
      return p.matrixTransform(svg.getScreenCTM());
    };
    let p = at();
    view.scrollBy(p.x - view.clientWidth / 2, p.y - view.clientHeight / 2);
    p = at();
    return { x: p.x, y: p.y };
  }, x, y);
}

async function checkHover(page, file) {
  const named = await page.evaluate(() => {
    const D = JSON.parse(document.getElementById('cm-data').textContent);
    const k = Object.keys(D.names)[0];
    return k === undefined ? null : { i: +k, name: D.names[k], cols: D.cols };
  });
  if (!named) return fail(file + ': no named square to hover');
  const x = named.i % named.cols, y = Math.floor(named.i / named.cols);
  const p = await squarePoint(page, x, y);
  await page.mouse.move(p.x, p.y);
  const info = await page.$eval('#info', e => e.textContent);
  if (!info.includes(named.name) || !info.includes('(' + x + ',' + y + ')'))
    fail(file + ': hovering (' + x + ',' + y + ') shows "' + info + '", not its name ' + named.name);
  const hover = await page.$eval('#cm-hover', e => e.getAttribute('visibility'));
  if (hover !== 'visible') fail(file + ': the hovered square is not outlined');
}

async function checkDiagnostic(page, file) {
  const li = await page.$('#diags li[data-sq]');
  if (!li) return fail(file + ': no diagnostic about a square to select');
  const sq = await li.evaluate(e => e.getAttribute('data-sq'));
  await li.click();
  const r = await page.evaluate(() => {
    const D = JSON.parse(document.getElementById('cm-data').textContent);
    const hl = document.getElementById('cm-hl');
    return { vis: hl.getAttribute('visibility'), x: (+hl.getAttribute('x') - D.ox) / D.cell,
             y: (+hl.getAttribute('y') - D.oy) / D.cell, sel: document.querySelectorAll('#diags li.sel').length,
             frame: document.querySelectorAll('.diag.sel').length };
  });
  if (r.vis !== 'visible' || r.x + ',' + r.y !== sq || r.sel !== 1 || r.frame !== 1)
    fail(file + ': selecting the diagnostic on ' + sq + ' highlights ' + JSON.stringify(r));
}

// A feature group (of those selector finds) whose middle is not covered
// by another element, scrolled into view: its point and data-f.
async function featurePoint(page, selector) {
  return page.evaluate(sel => {
    const view = document.getElementById('view');
    for (const f of document.querySelectorAll(sel)) {
      f.scrollIntoView({ block: 'center', inline: 'center' });
      const b = f.getBoundingClientRect();
      const x = b.left + b.width / 2, y = b.top + b.height / 2;
      const e = document.elementFromPoint(x, y);
      if (e && e.closest('.f') === f && view.contains(e)) return { x, y, key: f.getAttribute('data-f') };
    }
    return null;
  }, selector);
}

async function checkFeature(page, file) {
  const p = await featurePoint(page, '#tiles .f');
  if (!p) return fail(file + ': no feature to hover');
  await page.mouse.move(p.x, p.y);
  const r = await page.evaluate(key => ({
    info: document.getElementById('info').textContent,
    lit: document.querySelectorAll('.f.hi').length,
    all: document.querySelectorAll('.f[data-f="' + key + '"]').length }), p.key);
  if (!r.info.includes('feature ') || r.lit !== r.all || r.lit === 0)
    fail(file + ': hovering feature ' + p.key + ' shows "' + r.info + '" and lights ' + r.lit + ' of ' + r.all);
}

// A tile sheet: hovering a feature outlines it and describes it (tile,
// id, kind, slots); clicking a tile shows it turned four ways, each a
// drawing of the tile's own group; a problem in the list selects its tile.
async function checkSheet(page, file) {
  const p = await featurePoint(page, '#cm-sheet .f');
  if (!p) return fail(file + ': no feature to hover');
  await page.mouse.move(p.x, p.y);
  const r = await page.evaluate(key => ({
    info: document.getElementById('info').textContent,
    lit: document.querySelectorAll('.f.hi').length,
    want: window.carcamap.feature(key) }), p.key);
  if (r.lit !== 1 || r.info !== r.want || !/^tile .*, feature .*\nkind: .*\nslots: /.test(r.info))
    fail(file + ': hovering feature ' + p.key + ' shows "' + r.info + '" and lights ' + r.lit);
  await page.mouse.click(p.x, p.y);
  const t = await page.evaluate(() => {
    const sel = document.querySelectorAll('.card.sel'), turns = document.querySelectorAll('#rot svg.turn');
    const key = sel.length ? sel[0].getAttribute('data-t') : '';
    const href = Array.prototype.map.call(turns, v => v.querySelector('use').getAttribute('href'));
    const rot = Array.prototype.map.call(turns, v => v.querySelector('g').getAttribute('transform'));
    const box = turns.length ? turns[3].querySelector('use').getBoundingClientRect() : null;
    return { sel: sel.length, key, href, rot, tile: document.getElementById('tile').textContent,
             drawn: box ? box.width > 20 && box.height > 20 : false };
  });
  const id = '#t-' + t.key.replace(',', '-');
  if (t.sel !== 1 || t.href.length !== 4 || t.href.some(h => h !== id) || !t.drawn ||
      t.rot.join('|').indexOf('rotate(270') < 0 || !t.tile.includes('copies: C1 '))
    fail(file + ': clicking a tile shows ' + JSON.stringify(t));
  const li = await page.$('#diags li[data-t]');
  if (file === 'tiles-bad') {
    if (!li) return fail(file + ': no problem on a tile to select');
    const want = await li.evaluate(e => e.getAttribute('data-t'));
    await li.click();
    const got = await page.evaluate(() => {
      const s = document.querySelector('.card.sel');
      return s ? s.getAttribute('data-t') : null;
    });
    if (got !== want) fail(file + ': selecting the problem of tile ' + want + ' selects ' + got);
  }
}

// A heatmap page: hovering a coloured square (or printed element) shows
// its value with the interval in #info, the title the square carries.
async function checkHeat(page, file) {
  const p = await page.evaluate(() => {
    const n = document.querySelector('g.heat [data-value]');
    if (!n) return null;
    n.scrollIntoView({ block: 'center', inline: 'center' });
    const b = n.getBoundingClientRect();
    const t = n.querySelector(':scope>title');
    return { x: b.left + Math.min(6, b.width / 2), y: b.top + Math.min(6, b.height / 2),
             title: t ? t.textContent : '' };
  });
  if (!p) return fail(file + ': no heatmap value to hover');
  await page.mouse.move(p.x, p.y);
  const info = await page.$eval('#info', e => e.textContent);
  if (info !== p.title || !/\[[-0-9.]+, [-0-9.]+\]/.test(info))
    fail(file + ': hovering a heatmap value shows "' + info + '", not "' + p.title + '" with its interval');
  const legend = await page.evaluate(() => document.querySelectorAll('g.heat text').length);
  if (legend < 3) fail(file + ': the heatmap has no legend');
  // a report's page switches between its heatmaps
  const b = await page.$('button[data-layer="heat-use"]');
  if (!b) return;
  await b.click();
  const vis = await page.evaluate(() => Array.prototype.map.call(document.querySelectorAll('g.heat'),
    g => g.id + ':' + getComputedStyle(g).visibility).join(' '));
  if (vis !== 'heat-fill:hidden heat-turn:hidden heat-points:hidden heat-use:visible')
    fail(file + ': the use button shows ' + vis);
}

(async () => {
  const t0 = Date.now();
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  const pages = fs.readdirSync(dir).filter(f => f.endsWith('.html')).map(f => path.join(dir, f))
    .concat(fs.readdirSync(path.join(dir, 'extra')).filter(f => f.endsWith('.html')).map(f => path.join(dir, 'extra', f)));
  for (const file of pages.sort()) {
    const name = path.basename(file, '.html');
    const page = await browser.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(e.message));
    page.on('requestfailed', r => errors.push('request ' + r.url()));
    page.on('request', r => { if (!r.url().startsWith('file:')) errors.push('fetches ' + r.url()); });
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
    await page.screenshot({ path: path.join(shots, name + '.png') });
    if (name === 'germany' || name === 'every') await checkHover(page, name);
    if (name === 'every' || name === 'many') await checkDiagnostic(page, name);
    if (name === 'benelux-game') await checkFeature(page, name);
    if (name.startsWith('tiles-')) await checkSheet(page, name);
    if (name.startsWith('heat-')) await checkHeat(page, name);
    if (errors.length) fail(name + ': ' + errors.join('; '));
    await page.close();
  }
  await browser.close();
  if (!failed)
    console.log('render: ' + pages.length + ' pages in chromium, screenshots in ' + shots + ' (' +
                ((Date.now() - t0) / 1000).toFixed(1) + ' s)');
  process.exit(failed);
})().catch(e => { console.log('FAIL browser: ' + (e && e.stack || e)); process.exit(1); });

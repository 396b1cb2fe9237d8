import { randomBytes } from 'node:crypto';
import { convert, type DomNode } from 'html-to-text';

/**
 * The text of an HTML mail that a reader does not see: `display:none`, `visibility:hidden`,
 * zero opacity or font size, zero-height boxes, text pushed off screen, text in the background
 * colour (white on white), `hidden` elements, classes a `<style>` block hides, `<head>` and HTML
 * comments. Instructions aimed at a model like to hide there, so the injection detector reads it as
 * its own location. Parsing is htmlparser2's, reached through html-to-text (a direct dependency) so
 * the DOM is the one the text conversion sees; this module only walks it.
 */
const MAX_OUTPUT_CHARS = 20_000;
const MAX_INPUT_CHARS = 2 * 1024 * 1024;
/** htmlparser2 slows down sharply with nesting depth (50,000 levels take seconds); mail needs far fewer. */
const MAX_DEPTH = 5_000;
const VOID = new Set('area base br col embed hr img input link meta param source track wbr'.split(' '));
const WHITE: Rgb = [255, 255, 255];

type Rgb = [number, number, number];

const NAMED: Record<string, Rgb> = {
  white: WHITE,
  snow: [255, 250, 250],
  ivory: [255, 255, 240],
  whitesmoke: [245, 245, 245],
  black: [0, 0, 0],
  silver: [192, 192, 192],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  red: [255, 0, 0],
  green: [0, 128, 0],
  blue: [0, 0, 255],
  navy: [0, 0, 128],
  yellow: [255, 255, 0],
};

export function parseColor(value: string | undefined): Rgb | 'transparent' | null {
  if (!value) return null;
  const v = value.trim().toLowerCase();
  if (v === 'transparent') return 'transparent';
  if (NAMED[v]) return NAMED[v];
  const hex = /^#([0-9a-f]{3,8})$/.exec(v)?.[1];
  if (hex && (hex.length === 3 || hex.length === 4)) return [0, 1, 2].map((i) => parseInt(hex[i]! + hex[i]!, 16)) as Rgb;
  if (hex && (hex.length === 6 || hex.length === 8)) return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
  const rgb = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)(?:[\s,/]+([\d.]+%?))?\s*\)$/.exec(v);
  if (rgb) {
    const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? parseFloat(rgb[4]) / 100 : parseFloat(rgb[4]);
    return alpha < 0.1 ? 'transparent' : [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  }
  return null;
}

/** Inline style declarations, lower-cased, `!important` dropped; the last one of a name wins. */
export function parseStyle(style: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const decl of (style ?? '').split(';')) {
    const i = decl.indexOf(':');
    if (i < 0) continue;
    out.set(
      decl.slice(0, i).trim().toLowerCase(),
      decl
        .slice(i + 1)
        .replace(/!\s*important/i, '')
        .trim()
        .toLowerCase(),
    );
  }
  return out;
}

/** A length of (almost) nothing: `0`, `0px`, `1px`, `0.1em`, `0%`. */
function tiny(value: string | undefined, maxPx: number): boolean {
  const m = /^(-?[\d.]+)\s*(px|pt|em|rem|%)?$/.exec(value ?? '');
  if (!m) return false;
  const n = parseFloat(m[1]!);
  const px = m[2] === 'em' || m[2] === 'rem' ? n * 16 : m[2] === '%' ? n / 6.25 : n;
  return px <= maxPx;
}

function offScreen(value: string | undefined): boolean {
  const m = /^(-[\d.]+)\s*(px|pt|em|rem)?$/.exec(value ?? '');
  return m !== null && Math.abs(parseFloat(m[1]!)) * (m[2] === 'em' || m[2] === 'rem' ? 16 : 1) >= 500;
}

/** Whether declarations alone hide an element, whatever its colours. */
export function hidesElement(d: Map<string, string>): boolean {
  const overflowHidden = /hidden|clip/.test(d.get('overflow') ?? '');
  return (
    d.get('display') === 'none' ||
    /^(hidden|collapse)$/.test(d.get('visibility') ?? '') ||
    tiny(d.get('opacity'), 0.05) ||
    tiny(d.get('font-size'), 1) ||
    d.get('mso-hide') === 'all' ||
    (overflowHidden && ['height', 'max-height', 'width', 'max-width'].some((k) => tiny(d.get(k), 1))) ||
    ['text-indent', 'left', 'top', 'margin-left', 'margin-top'].some((k) => offScreen(d.get(k))) ||
    /^rect\(\s*0(px)?[\s,]+0(px)?/.test(d.get('clip') ?? '')
  );
}

/** Class and id selectors whose rules in `<style>` blocks hide the element (`.pre { display:none }`). */
function hiddenSelectors(css: string): { classes: Set<string>; ids: Set<string> } {
  const classes = new Set<string>();
  const ids = new Set<string>();
  for (const rule of css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/(?<![^{}])([^{}]+)\{([^{}]*)\}/g)) {
    if (!hidesElement(parseStyle(rule[2]))) continue;
    for (const selector of rule[1]!.split(',')) {
      const last =
        selector
          .trim()
          .split(/[\s>+~]+/)
          .pop() ?? '';
      for (const m of last.matchAll(/([.#])([\w-]+)/g)) (m[1] === '.' ? classes : ids).add(m[2]!);
    }
  }
  return { classes, ids };
}

function near(a: Rgb, b: Rgb): boolean {
  return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) <= 40;
}

interface Frame {
  node: DomNode;
  /** Index of the hidden region this node lies in (its text is collected there), or -1. */
  group: number;
  color: Rgb | null;
  background: Rgb;
}

/** Walks the parsed document; iterative, so deeply nested mail cannot exhaust the stack. */
function collect(root: DomNode): string {
  const css = hiddenSelectors(gatherCss(root));
  const groups: string[][] = [];
  const stack: Frame[] = [...root.children].reverse().map((node) => ({ node, group: -1, color: null, background: WHITE }));
  let size = 0;
  while (stack.length > 0 && size < MAX_OUTPUT_CHARS) {
    const { node, group, color, background } = stack.pop()!;
    if (node.type === 'comment') {
      const text = (node.data ?? '').replace(/<[^<>]*>/g, ' ');
      if (text.trim()) groups.push([text]);
      size += text.length;
      continue;
    }
    if (node.type === 'text') {
      const text = node.data ?? '';
      const invisible = color !== null && near(color, background);
      if (text.trim() && (group >= 0 || invisible)) {
        if (group >= 0) groups[group]!.push(text);
        else groups.push([text]);
        size += text.length;
      }
      continue;
    }
    if (node.type !== 'tag') continue;
    const attribs = (node.attribs ?? {}) as Record<string, string | undefined>;
    const style = parseStyle(attribs.style);
    const ownBackground = parseColor(style.get('background-color') ?? style.get('background')?.split(/\s+/)[0] ?? attribs.bgcolor);
    const nextBackground = ownBackground && ownBackground !== 'transparent' ? ownBackground : background;
    const ownColor = parseColor(style.get('color') ?? attribs.color);
    // Transparent text is invisible on any background.
    const nextColor = ownColor === 'transparent' ? nextBackground : (ownColor ?? color);
    const hidden =
      group < 0 &&
      (attribs.hidden !== undefined ||
        ['head', 'title', 'template'].includes(node.name ?? '') ||
        hidesElement(style) ||
        (attribs.class ?? '').split(/\s+/).some((c) => css.classes.has(c)) ||
        css.ids.has(attribs.id ?? ''));
    const childGroup = hidden ? groups.push([]) - 1 : group;
    for (const child of [...node.children].reverse()) {
      stack.push({ node: child, group: childGroup, color: nextColor, background: nextBackground });
    }
  }
  return groups
    .map((g) => g.join(' ').replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, MAX_OUTPUT_CHARS);
}

function gatherCss(root: DomNode): string {
  const parts: string[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'style') parts.push(...node.children.map((c) => c.data ?? ''));
    else stack.push(...(node.children ?? []));
  }
  return parts.join('\n');
}

/** The HTML up to the tag where its nesting passes `MAX_DEPTH`: what a reader could ever see of it. */
export function depthLimited(html: string, maxDepth = MAX_DEPTH): string {
  let depth = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)(?![\w-])[^<>]*?(\/?)>/g)) {
    if (VOID.has(m[2]!.toLowerCase()) || m[3]) continue;
    depth += m[1] ? -1 : 1;
    if (depth > maxDepth) return html.slice(0, m.index);
    if (depth < 0) depth = 0;
  }
  return html;
}

/** The hidden text of an HTML body, one line per hidden region; '' when nothing is hidden. */
export function extractHiddenText(html: string): string {
  if (!html.trim()) return '';
  // A wrapper element only we can name: the mail cannot close it early, and its whole DOM reaches
  // the formatter below in one piece.
  const wrapper = `xhidden${randomBytes(8).toString('hex')}`;
  let found = '';
  convert(`<${wrapper}>${depthLimited(html.slice(0, MAX_INPUT_CHARS))}</${wrapper}>`, {
    baseElements: { selectors: [wrapper], returnDomByDefault: false },
    selectors: [{ selector: wrapper, format: 'collectHidden' }],
    formatters: {
      collectHidden: (elem) => {
        found = collect(elem);
      },
    },
    limits: { maxInputLength: MAX_INPUT_CHARS + 2 * wrapper.length + 5 },
  });
  return found;
}

export interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  /** The element's own text, entities decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string, where: string): string {
  const bad = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.exec(text);
  if (bad) throw new Error(`unescaped & in ${where}: ${JSON.stringify(text)}`);
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_, e: string) => (e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16))
    : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ENTITIES[e]));
}

/**
 * A tiny well-formedness check that is enough for the SVG we write: an optional XML
 * declaration, then exactly one root element; tags balanced, attributes quoted and unique,
 * no raw `<` or stray `&` in text or attribute values. Returns the root element.
 */
export function parseXml(xml: string): Element {
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\s*/, '');
  const token = /<\/([A-Za-z][\w:.-]*)\s*>|<([A-Za-z][\w:.-]*)((?:\s+[A-Za-z][\w:.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  const stack: Element[] = [];
  let root: Element | undefined;
  for (let m = token.exec(body); m !== null; m = token.exec(body)) {
    const [, close, open, attrText, selfClosing, text, stray] = m;
    if (stray !== undefined) throw new Error(`malformed markup at ${m.index}: ${JSON.stringify(body.slice(m.index, m.index + 40))}`);
    if (text !== undefined) {
      if (stack.length === 0) {
        if (text.trim() !== '') throw new Error(`text outside the root element: ${JSON.stringify(text)}`);
      } else stack[stack.length - 1].text += decode(text, `<${stack[stack.length - 1].name}>`);
    } else if (close !== undefined) {
      const top = stack.pop();
      if (top?.name !== close) throw new Error(`</${close}> closes <${top?.name ?? 'nothing'}>`);
    } else {
      if (root !== undefined && stack.length === 0) throw new Error(`second root element <${open}>`);
      const attrs: Record<string, string> = {};
      for (const [, k, v] of attrText.matchAll(/([A-Za-z][\w:.-]*)="([^"]*)"/g)) {
        if (k in attrs) throw new Error(`duplicate attribute ${k} on <${open}>`);
        attrs[k] = decode(v, `${open}@${k}`);
      }
      const element: Element = { name: open, attrs, children: [], text: '' };
      if (stack.length > 0) stack[stack.length - 1].children.push(element);
      else root = element;
      if (selfClosing !== '/') stack.push(element);
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (root === undefined) throw new Error('no root element');
  return root;
}

/** Every element below `root` (depth first) for which `match` holds. */
export function findAll(root: Element, match: (e: Element) => boolean): Element[] {
  return root.children.flatMap((c) => [...(match(c) ? [c] : []), ...findAll(c, match)]);
}

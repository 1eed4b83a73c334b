/**
 * Maps a field path of a parsed YAML document (`processes[2].env`) to the line and column where
 * the author wrote it, so an error can point at the line to fix.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export interface Location {
  line: number;
  column: number;
}

type PathSegment = string | number;

/** `processes[2].executableAndArguments[0].exec` → `['processes', 2, 'executableAndArguments', 0, 'exec']`. */
export function pathSegments(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    segments.push(part.startsWith('[') ? Number(part.slice(1, -1)) : part);
  }
  return segments;
}

export class YamlLocator {
  constructor(
    private readonly document: Document,
    private readonly lines: LineCounter,
  ) {}

  /** Where an offset of the source is. */
  at(offset: number): Location {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /**
   * The place of `segments`: the node itself when it was written, else the deepest ancestor that
   * was (a missing field is reported where its object starts). `depth` says how far it got.
   * `atKey` points at the key of the last segment (an unknown field) rather than its value;
   * `entry` then picks one entry of the map found (an env variable named in the message).
   */
  locate(
    segments: readonly PathSegment[],
    options: { atKey?: boolean; entry?: string } = {},
  ): { location: Location; depth: number } {
    let node: unknown = this.document.contents;
    let place = node as Node | undefined;
    let depth = 0;
    for (const segment of segments) {
      const child = this.child(node, segment);
      if (!child) break;
      depth++;
      node = child.value;
      place = options.atKey && options.entry === undefined ? child.key : child.place;
    }
    if (options.entry !== undefined && depth === segments.length) {
      const entry = this.child(node, options.entry);
      if (entry) place = options.atKey ? entry.key : entry.place;
    }
    return { location: this.at(place?.range?.[0] ?? 0), depth };
  }

  /** A child of a map (by key) or sequence (by index): its value, and where to point at. */
  private child(
    node: unknown,
    segment: PathSegment,
  ): { value: unknown; place: Node; key: Node } | undefined {
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      return isNodeLike(item) ? { value: item, place: item, key: item } : undefined;
    }
    if (!isMap(node)) return undefined;
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key) || String(pair.key.value) !== String(segment))
        continue;
      // A key without value (`name:`) points at the key.
      const place = isNodeLike(pair.value) ? pair.value : pair.key;
      return { value: pair.value, place, key: pair.key };
    }
    return undefined;
  }
}

function isNodeLike(value: unknown): value is Node {
  return (
    typeof value === 'object' && value !== null && 'range' in value && Array.isArray(value.range)
  );
}

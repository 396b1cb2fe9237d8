import type { DraftContextItem } from './vector-index.port';

/**
 * Collects a draft's context in the order given, each passage once: the same source with the
 * same text (a mail found as thread and as similar) is kept at its first, better-ranked place.
 */
export function contextCollector(): { items: DraftContextItem[]; add(item: DraftContextItem): void } {
  const seen = new Set<string>();
  const items: DraftContextItem[] = [];
  return {
    items,
    add(item) {
      const key = `${item.sourceId}:${item.text}`;
      if (seen.has(key)) return;
      seen.add(key);
      items.push(item);
    },
  };
}

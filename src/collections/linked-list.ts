// A list in an order of its owner's choosing (added, or last used), where
// adding, removing and moving an item to the end take constant time and
// allocate nothing past the item's link, whose pointers are cleared when it
// is removed. The server's per-stream bookkeeping, the cache's and the rate
// limits' orders of use and the prepared calls' order keep their items here:
// a Set or Map of streams keeps dead calls alive past young collections, and a
// small Map re-ordered on every hit reallocates its table each time.
/** One item's place in a list; `remove` takes it out. */
export interface Link<T> {
  readonly item: T;
  /** Whether it is still in its list. */
  readonly listed: boolean;
}

/**
 * A link in no list, for a field that gets its link just after its object
 * is made (the object is in, or is, the link's item): removing or moving it
 * does nothing.
 */
export const unlisted: Link<never> = Object.freeze({ item: undefined as never, listed: false });

interface Node<T> extends Link<T> {
  listed: boolean;
  previous: Node<T> | undefined;
  next: Node<T> | undefined;
}

export class LinkedList<T> {
  private first: Node<T> | undefined;
  private last: Node<T> | undefined;
  private count = 0;

  /** How many items it holds. */
  get size(): number {
    return this.count;
  }

  /** Adds `item` at the end. */
  push(item: T): Link<T> {
    const node: Node<T> = { item, listed: true, previous: this.last, next: undefined };
    if (this.last === undefined) this.first = node;
    else this.last.next = node;
    this.last = node;
    this.count += 1;
    return node;
  }

  /** Takes the first link out and gives its item; undefined when the list is empty. */
  shift(): T | undefined {
    const first = this.first;
    if (first === undefined) return undefined;
    this.remove(first);
    return first.item;
  }

  /** Moves `link` to the end; it must be this list's (nothing is done for one removed). */
  moveToEnd(link: Link<T>): void {
    const node = link as Node<T>;
    if (!node.listed || node === this.last) return;
    this.unlink(node);
    node.previous = this.last;
    node.next = undefined;
    this.last!.next = node;
    this.last = node;
  }

  /** Takes `link` out of the list; false when it was out already. */
  remove(link: Link<T>): boolean {
    const node = link as Node<T>;
    if (!node.listed) return false;
    this.unlink(node);
    this.count -= 1;
    node.listed = false;
    node.previous = undefined;
    node.next = undefined;
    return true;
  }

  /** Joins `node`'s neighbours, leaving its own pointers as they were. */
  private unlink(node: Node<T>): void {
    const { previous, next } = node;
    if (previous === undefined) this.first = next;
    else previous.next = next;
    if (next === undefined) this.last = previous;
    else next.previous = previous;
  }

  /**
   * The links, first to last. The current one may be removed on the way,
   * or moved to the end, where the walk meets it again; one after it
   * removed meanwhile ends the walk early, and one after it moved to the
   * end takes the walk there.
   */
  *[Symbol.iterator](): IterableIterator<Link<T>> {
    let node = this.first;
    while (node !== undefined) {
      const next = node.next;
      yield node;
      node = next?.listed ? next : undefined;
    }
  }
}

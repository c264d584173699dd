// A list of short-lived things in the order they were added, for the
// per-stream bookkeeping of the server (unsent bytes, request deadlines):
// adding and removing take constant time, and a removed link's pointers
// are cleared. A Set or Map holding every stream made the young
// generation's collections keep twice the bytes alive under gRPC load
// (docs/performance.md, "Where a hit's time goes"); links that point at
// nothing once removed let a call's objects die young.

/** One item's place in a list; `remove` takes it out. */
export interface Link<T> {
  readonly item: T;
  /** Whether it is still in its list. */
  readonly listed: boolean;
}

interface Node<T> extends Link<T> {
  listed: boolean;
  previous: Node<T> | undefined;
  next: Node<T> | undefined;
}

export class LinkedList<T> {
  private first: Node<T> | undefined;
  private last: Node<T> | undefined;

  /** Adds `item` at the end. */
  push(item: T): Link<T> {
    const node: Node<T> = { item, listed: true, previous: this.last, next: undefined };
    if (this.last === undefined) this.first = node;
    else this.last.next = node;
    this.last = node;
    return node;
  }

  /** Takes `link` out of the list; false when it was out already. */
  remove(link: Link<T>): boolean {
    const node = link as Node<T>;
    if (!node.listed) return false;
    const { previous, next } = node;
    if (previous === undefined) this.first = next;
    else previous.next = next;
    if (next === undefined) this.last = previous;
    else next.previous = previous;
    node.listed = false;
    node.previous = undefined;
    node.next = undefined;
    return true;
  }

  /**
   * The links, first added first. The current one may be removed on the
   * way; one after it removed meanwhile ends the walk early.
   */
  *[Symbol.iterator](): IterableIterator<Link<T>> {
    let node = this.first;
    while (node !== undefined) {
      const next = node.next;
      yield node;
      node = next !== undefined && next.listed ? next : undefined;
    }
  }
}

import { describe, expect, it } from "vitest";
import { LinkedList, unlisted } from "../../src/collections/index.js";

const items = <T>(list: LinkedList<T>) => [...list].map((link) => link.item);

describe("LinkedList", () => {
  it("keeps items in the order they were added and takes out any of them", () => {
    const list = new LinkedList<string>();
    const [a, b, c, d] = ["a", "b", "c", "d"].map((item) => list.push(item));
    expect(items(list)).toEqual(["a", "b", "c", "d"]);
    expect(list.remove(b!)).toBe(true);
    expect(items(list)).toEqual(["a", "c", "d"]);
    expect(list.remove(a!)).toBe(true);
    expect(list.remove(d!)).toBe(true);
    expect(items(list)).toEqual(["c"]);
    expect(c!.listed).toBe(true);
    expect(list.remove(c!)).toBe(true);
    expect(items(list)).toEqual([]);
    list.push("e");
    expect(items(list)).toEqual(["e"]);
  });

  it("answers false for a link taken out already, and leaves the rest as they were", () => {
    const list = new LinkedList<number>();
    const one = list.push(1);
    list.push(2);
    expect(list.remove(one)).toBe(true);
    expect(one.listed).toBe(false);
    expect(list.remove(one)).toBe(false);
    expect(items(list)).toEqual([2]);
  });

  it("lets a walk take out the link it is on and go on to the next", () => {
    const list = new LinkedList<number>();
    for (const n of [1, 2, 3, 4]) list.push(n);
    const seen: number[] = [];
    for (const link of list) {
      seen.push(link.item);
      if (link.item % 2 === 1) list.remove(link);
    }
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(items(list)).toEqual([2, 4]);
  });

  it("ends a walk early when the link after the current one is taken out meanwhile", () => {
    const list = new LinkedList<number>();
    const links = [1, 2, 3].map((n) => list.push(n));
    const seen: number[] = [];
    for (const link of list) {
      seen.push(link.item);
      if (link.item === 1) list.remove(links[1]!);
    }
    expect(seen).toEqual([1]);
    expect(items(list)).toEqual([1, 3]);
  });

  it("moves a link to the end, counting each item once", () => {
    const list = new LinkedList<string>();
    const [a, b, c] = ["a", "b", "c"].map((item) => list.push(item));
    list.moveToEnd(a!);
    expect(items(list)).toEqual(["b", "c", "a"]);
    list.moveToEnd(c!);
    expect(items(list)).toEqual(["b", "a", "c"]);
    list.moveToEnd(c!); // the last already
    expect(items(list)).toEqual(["b", "a", "c"]);
    list.moveToEnd(b!);
    expect(items(list)).toEqual(["a", "c", "b"]);
    expect(list.size).toBe(3);
    list.remove(c!);
    list.moveToEnd(c!); // removed: stays out
    expect(items(list)).toEqual(["a", "b"]);
    expect(list.size).toBe(2);
    list.push("d");
    expect(items(list)).toEqual(["a", "b", "d"]);
    expect(list.size).toBe(3);
  });

  it("moves the only link without losing it, and keeps both ends right", () => {
    const list = new LinkedList<number>();
    const one = list.push(1);
    list.moveToEnd(one);
    expect(items(list)).toEqual([1]);
    const two = list.push(2);
    list.moveToEnd(one);
    list.remove(two);
    expect(items(list)).toEqual([1]);
    list.remove(one);
    expect(items(list)).toEqual([]);
    expect(list.size).toBe(0);
  });

  it("lets a walk move the link it is on to the end and go on to the next", () => {
    const list = new LinkedList<number>();
    for (const n of [1, 2, 3]) list.push(n);
    const seen: number[] = [];
    for (const link of list) {
      seen.push(link.item);
      if (link.item === 1) list.moveToEnd(link);
    }
    expect(seen).toEqual([1, 2, 3, 1]);
    expect(items(list)).toEqual([2, 3, 1]);
  });

  it("does nothing with the unlisted link", () => {
    const list = new LinkedList<number>();
    list.push(1);
    expect(list.remove(unlisted)).toBe(false);
    list.moveToEnd(unlisted);
    expect(items(list)).toEqual([1]);
    expect(list.size).toBe(1);
  });

  it("shifts the first item out, and nothing from an empty list", () => {
    const list = new LinkedList<string>();
    expect(list.shift()).toBeUndefined();
    const [a] = ["a", "b"].map((item) => list.push(item));
    expect(list.shift()).toBe("a");
    expect(a!.listed).toBe(false);
    expect(items(list)).toEqual(["b"]);
    expect(list.shift()).toBe("b");
    expect([list.size, list.shift()]).toEqual([0, undefined]);
    list.push("c");
    expect(items(list)).toEqual(["c"]);
  });
});

// Data structures the stages share, with no knowledge of any of them.
export { LinkedList, type Link, unlisted } from "./linked-list.js";
export { createBoundedMemo } from "./bounded-memo.js";

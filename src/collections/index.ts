// Data structures the stages share, with no knowledge of any of them.
export { LinkedList, type Link, unlisted } from "./linked-list.js";
export { remembered } from "./remembered.js";

export * from "./table";
export * from "./machine";
export * from "./replay";
export { toMermaid } from "./diagram";

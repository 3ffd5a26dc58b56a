export * from "./table";
export * from "./machine";
export * from "./rebuild";
export { toMermaid } from "./diagram";

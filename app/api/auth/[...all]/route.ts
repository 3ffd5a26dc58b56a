import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/auth/auth";

export const dynamic = "force-dynamic";

const handler = (request: Request) => auth().handler(request);
export const { GET, POST } = toNextJsHandler(handler);

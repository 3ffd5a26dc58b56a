import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getViewer } from "@/lib/auth/viewer";
import { safeNext } from "@/lib/auth/next-path";
import { SignInForm } from "./sign-in-form";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: SearchParamsProps) {
  const raw = (await searchParams).next;
  const next = safeNext(typeof raw === "string" ? raw : null);
  if (await getViewer()) redirect(next);
  return (
    <div className="mx-auto mt-12 max-w-sm space-y-6 rounded-lg border border-neutral-200 bg-white p-6 shadow-xs">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Sign in to Jobscope</h1>
        <p className="mt-1 text-sm text-neutral-600">Accounts are created by an administrator.</p>
      </div>
      <SignInForm next={next} />
    </div>
  );
}

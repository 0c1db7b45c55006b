// Calls every operation of keeper's JSON transport through a client generated from
// docs/openapi.json: openapi-typescript's types (keeper-api.d.ts, made by the test), openapi-fetch's
// calls. `tsc --strict` checks every call's parameters and every answer's type against the
// document; at run time each answer's `d` is checked to be of that type. Prints the answers as one
// JSON object for tests/clients/openapi_generated_test.py, which made the objects named in argv[2].
import createClient from "openapi-fetch";
import type { paths } from "./keeper-api";

interface Objects {
  base: string;
  login: string;
  session: string;
  authHash: string;
  app: string;
  appHash: string;
  purse: string;
  id: number;
  device: string;
  key: string;
}

const o: Objects = JSON.parse(process.argv[2] ?? "{}");
const client = createClient<paths>({ baseUrl: o.base });

// A result code: the generated type is the union of the codes the operation can give.
function code(d: number | undefined, what: string): number {
  if (typeof d !== "number" || !Number.isInteger(d)) throw new Error(`${what}: no result code: ${String(d)}`);
  return d;
}

function text(d: string | undefined, what: string): string {
  if (typeof d !== "string") throw new Error(`${what}: no string: ${String(d)}`);
  return d;
}

async function main(): Promise<void> {
  const answers: Record<string, number | string | boolean> = {};
  const session = o.session;
  answers.Authenticate = code((await client.POST("/SimpleAuthApi.asmx/Authenticate", {
    body: { sessionId: session, login: o.login, authHash: o.authHash },
  })).data?.d, "Authenticate");
  answers.CheckSessionEx = code((await client.POST("/AccountApi.asmx/CheckSessionEx", {
    body: { sessionId: session, appId: o.app },
  })).data?.d, "CheckSessionEx");
  answers.SetAccountPermits = code((await client.POST("/AccountApi.asmx/SetAccountPermits", {
    body: { sessionId: session, acceptPayments: true, acceptInvoices: false, acceptMessages: true },
  })).data?.d, "SetAccountPermits");
  answers.SetContactPermitsEx = code((await client.POST("/AccountApi.asmx/SetContactPermitsEx", {
    body: { sessionId: session, wmid: "123456789012", acceptPayments: false, acceptInvoices: true,
            acceptMessages: false, dontUseConfirmation: true },
  })).data?.d, "SetContactPermitsEx");
  answers.FinishCodeProtectedOperation = code((await client.POST("/AccountApi.asmx/FinishCodeProtectedOperation", {
    body: { sessionId: session, tranId: o.id, protectionCode: "4321" },
  })).data?.d, "FinishCodeProtectedOperation");

  // A top-up with an Idempotency-Key, sent twice: the second answer is the first one's, replayed.
  const topup = { sessionId: session, purseDest: o.purse, cardId: o.id, amount: 10.2 };
  const first = await client.POST("/AccountApi.asmx/TopupPurseFromAtmCard", {
    params: { header: { "Idempotency-Key": o.key } }, body: topup,
  });
  const again = await client.POST("/AccountApi.asmx/TopupPurseFromAtmCard", {
    params: { header: { "Idempotency-Key": o.key } }, body: topup,
  });
  answers.TopupPurseFromAtmCard = code(first.data?.d, "TopupPurseFromAtmCard");
  answers.TopupRepeated = code(again.data?.d, "TopupPurseFromAtmCard again");
  answers.TopupReplayed = again.response.headers.get("Idempotent-Replayed") === "true";

  answers.TelepaySchedulerConfirmCreate = code((await client.POST("/TelepayApi.asmx/TelepaySchedulerConfirmCreate", {
    body: { sessionId: session, profileId: o.id, taskId: 1, code: "777" },
  })).data?.d, "TelepaySchedulerConfirmCreate");
  answers.RenameTelepayProfile = code((await client.POST("/TelepayApi.asmx/RenameTelepayProfile", {
    body: { sessionId: session, id: o.id, name: " Квартплата " },
  })).data?.d, "RenameTelepayProfile");
  answers.SubscribeWithTagAndLocale = code((await client.POST("/PushApi.asmx/SubscribeWithTagAndLocale", {
    body: { sessionId: session, provider: "WindowsUWP", pushServiceUserId: o.device, tag: 4, locale: 1049 },
  })).data?.d, "SubscribeWithTagAndLocale");
  answers.SubscribeAppWithTagAndLocale = code((await client.POST("/PushApi.asmx/SubscribeAppWithTagAndLocale", {
    body: { appId: o.app, userId: "app-user", pushServiceUserId: o.device, tag: 2, locale: 1033, authHash: o.appHash },
  })).data?.d, "SubscribeAppWithTagAndLocale");
  answers.MarkPushSmsAsDelivered = code((await client.POST("/PushApi.asmx/MarkPushSmsAsDelivered", {
    body: { sessionId: session, id: o.id },
  })).data?.d, "MarkPushSmsAsDelivered");
  answers.GetUtcNow = text((await client.POST("/GlobalApi.asmx/GetUtcNow", { body: {} })).data?.d, "GetUtcNow");
  answers.GetErrorDesc = text((await client.POST("/ErrorsApi.asmx/GetErrorDesc", {
    body: { errorCode: 5, cultureCode: 1049 },
  })).data?.d, "GetErrorDesc");

  // An error is the document's error shape: a 400 with {"Message"}.
  const missing = await client.POST("/SimpleAuthApi.asmx/Authenticate", { body: { sessionId: session } as never });
  answers.MissingParameterStatus = missing.response.status;
  answers.MissingParameterMessage = text(missing.error?.Message, "the 400's Message");
  console.log(JSON.stringify(answers));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

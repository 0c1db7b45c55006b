// Must not compile: the document allows only the locales keeper takes (1033, 1049), so the
// generated types refuse 1099 (the test checks that tsc fails on this file).
import createClient from "openapi-fetch";
import type { paths } from "./keeper-api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1" });
void client.POST("/PushApi.asmx/SubscribeWithTagAndLocale", { body: { sessionId: "s", provider: "Android", pushServiceUserId: "d", tag: 1, locale: 1099 } });

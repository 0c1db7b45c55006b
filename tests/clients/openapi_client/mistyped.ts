// Must not compile: the generated types refuse a string where the document says int32 (the test
// checks that tsc fails on this file, so the typing it relies on is real).
import createClient from "openapi-fetch";
import type { paths } from "./keeper-api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1" });
void client.POST("/ErrorsApi.asmx/GetErrorDesc", { body: { errorCode: "four", cultureCode: 1033 } });

#include "core/pages/idempotency_guide.hpp"

namespace keeper::core {

// Hand-written: how each client stack sends the header. The rules themselves are in
// docs/api-decisions.md ("Idempotency-Key"); the snippets name only real client APIs.
std::string idempotency_key_guide() {
    return R"(## Idempotency-Key

Every operation that changes something (each one below marked "Idempotency-Key: taken") accepts an
`Idempotency-Key` HTTP header, on all five transports. Send a new key with each new call (a UUID
does), and the same key when you repeat that call because you got no answer: the call runs at most
once, and every repeat gets the first call's answer with the header `Idempotent-Replayed: true`.
The key is 1 to 255 visible ASCII characters, bare or as a quoted string (`"..."`, as the IETF
draft writes it); anything else is a client error. The same key with other parameters is refused:
422 with `{"Message"}` to JSON, 422 and a text line to GET and POST, a `soap:Client` /
`soap:Sender` fault (HTTP 500) to SOAP. Keys are kept 24 hours (`key_retention_hours`), per caller:
the session's login, the application, or the login Authenticate names. The WSDL does not mention
the header; a client that does not send it works as before. Reads (CheckSessionEx, GetUtcNow,
GetErrorDesc) ignore it. Details: docs/api-decisions.md, "Idempotency-Key".

curl:

```
curl -H 'Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"' \
     -H 'Content-Type: application/json; charset=utf-8' \
     -d '{"sessionId":"…","purseDest":"Z123456789012","cardId":17,"amount":10.5}' \
     http://127.0.0.1:8080/AccountApi.asmx/TopupPurseFromAtmCard
```

Python zeep (`Client.settings` sets HTTP headers for the calls inside the block):

```
key = str(uuid.uuid4())                      # keep it until the top-up has an answer
with client.settings(extra_http_headers={"Idempotency-Key": key}):
    result = client.service.TopupPurseFromAtmCard(sessionId=sid, purseDest=purse, cardId=17, amount=10.5)
```

Python suds (`headers` are HTTP headers for the calls that follow):

```
client.set_options(headers={"Idempotency-Key": key})
result = client.service.TopupPurseFromAtmCard(sid, purse, 17, 10.5)
```

PHP SoapClient (the stream context's HTTP headers go with every request):

```
$context = stream_context_create();
$client = new SoapClient($wsdl, ['stream_context' => $context]);
stream_context_set_option($context, 'http', 'header', "Idempotency-Key: $key");
$result = $client->TopupPurseFromAtmCard(['sessionId' => $sid, 'purseDest' => $purse, 'cardId' => 17, 'amount' => 10.5]);
```

.NET (a proxy made by wsdl.exe or "Add Web Reference"; its class is partial):

```
public partial class AccountApi
{
    public string IdempotencyKey { get; set; }

    protected override System.Net.WebRequest GetWebRequest(System.Uri uri)
    {
        var request = base.GetWebRequest(uri);
        if (IdempotencyKey != null) request.Headers["Idempotency-Key"] = IdempotencyKey;
        return request;
    }
}
```

node-soap (the fourth argument of a method holds extra HTTP headers):

```
const [result] = await client.TopupPurseFromAtmCardAsync(args, {}, { 'Idempotency-Key': key });
```

gSOAP (`http_extra_header` holds extra header lines for the next request; set it before each call):

```
soap->http_extra_header = "Idempotency-Key: 8e03978e-40d5-43e8-bc93-6894a57f9324";
soap_call___ns1__TopupPurseFromAtmCard(soap, endpoint, nullptr, &request, &response);
```

)";
}

}  // namespace keeper::core

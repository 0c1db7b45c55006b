#!/bin/bash
# Runs in the deploy tier's container: writes through the shipped nginx site until /root/load.stop
# exists. Each round authenticates a new session of LOGIN (a write: the session row) and sets its
# account permits (a write). A line per call to /root/NAME.out: "ok OP", or "fail OP STATUS BODY".
# Usage: load.sh LOGIN SECRET NAME
login=$1 secret=$2 name=$3
out=/root/$name.out
call() {  # call OP PATH
    local answer
    answer=$(curl -sk --max-time 60 -w ' %{http_code}' "https://127.0.0.1/$2" 2>&1)
    case $answer in
        *'>0</int> 200') echo "ok $1" >>"$out" ;;
        *) echo "fail $1 $(printf '%s' "$answer" | tr '\r\n' '  ' | tail -c 200)" >>"$out" ;;
    esac
}
n=0
while [ ! -e /root/load.stop ]; do
    n=$((n + 1))
    session="$name-$$-$n"
    hash=$(printf '%s:%s:%s' "$login" "$secret" "$session" | tr '[:upper:]' '[:lower:]' | md5sum | cut -c1-32)
    call Authenticate "SimpleAuthApi.asmx/Authenticate?sessionId=$session&login=$login&authHash=$hash"
    call SetAccountPermits "AccountApi.asmx/SetAccountPermits?sessionId=$session&acceptPayments=true&acceptInvoices=false&acceptMessages=true"
done

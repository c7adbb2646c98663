#!/usr/bin/env bash
# Makes a private test CA and server certificates for 127.0.0.1 / localhost in folder $1:
#   ca.pem                the CA (not trusted by the system)
#   valid.pem             valid for a year
#   expiring.pem          expires in 2 days and 1 hour
#   expired.pem           expired 3 days ago (validity backdated with `openssl ca -startdate/-enddate`)
#   server.key            the key of all three server certificates
#   client.pem client.key a client certificate for mutual TLS
set -euo pipefail
dir=$1
cd "$dir"
cat > ca.cnf <<'CNF'
[ ca ]
default_ca = test_ca
[ test_ca ]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = anything
copy_extensions = copy
unique_subject = no
[ anything ]
commonName = supplied
CNF
: > index.txt
echo 01 > serial
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj "/CN=Pathwatch Test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2>/dev/null
sign() {  # sign <out> <notBefore> <notAfter>, dates as YYYYMMDDHHMMSSZ
    openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in server.csr -out "$1" \
        -startdate "$2" -enddate "$3" -notext 2>/dev/null
}
stamp() { date -u -d "$1" +%Y%m%d%H%M%SZ; }
sign valid.pem "$(stamp '1 day ago')" "$(stamp '365 days')"
sign expiring.pem "$(stamp '1 day ago')" "$(stamp '2 days 1 hour')"
sign expired.pem "$(stamp '30 days ago')" "$(stamp '3 days ago')"
openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj "/CN=pathwatch-client" 2>/dev/null
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in client.csr -out client.pem -days 30 -notext 2>/dev/null

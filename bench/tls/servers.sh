# Sourced by bench/tls/run.sh, flood.sh and refused.sh: a throw-away certificate for 127.0.0.1, the shipped
# config.json with its http sink on 127.0.0.1:18470 with `tls`, node_exporter on
# 127.0.0.1:19100 with an equivalent --web.config.file (the same certificate and key, TLS 1.2
# minimum), both started and answering. Sets `work` (removed on exit), `pw` and `ne` (their pids),
# and defines `rss PID`.
# Needs PATHWATCH, PLUGINS and NAME (names the folder: /tmp/pathwatch-bench-NAME.*).
work=$(mktemp -d "/tmp/pathwatch-bench-$NAME.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -subj /CN=bench -days 2 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
sed -e "s|\"\./\.build/release\"|\"$PLUGINS\"|" -e "s|\"\./\.pathwatch\"|\"$work/state\"|" -e "s|\"\./status\.json\"|\"$work/status.json\"|" \
    -e "s|{ \"type\": \"http\", \"listen\": \"127.0.0.1:8470\" }|{ \"type\": \"http\", \"listen\": \"127.0.0.1:18470\", \"tls\": {\"cert_file\": \"$work/cert.pem\", \"key_file\": \"$work/key.pem\"} }|" \
    config.json > "$work/pathwatch.json"
grep -q '"tls"' "$work/pathwatch.json" || { echo "config.json's http sink was not found to rewrite" >&2; exit 1; }
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  min_version: TLS12\n' "$work/cert.pem" "$work/key.pem" > "$work/web.yml"
"$PATHWATCH" run --config "$work/pathwatch.json" --log-level warning >/dev/null 2>"$work/pathwatch.err" & pids+=($!); pw=$!
prometheus-node-exporter --web.listen-address=127.0.0.1:19100 --web.config.file="$work/web.yml" >/dev/null 2>"$work/ne.err" & pids+=($!); ne=$!
for url in https://127.0.0.1:18470/healthz https://127.0.0.1:19100/metrics; do
    for _ in $(seq 100); do curl -sfk -o /dev/null "$url" && break; sleep 0.1; done
done

# A process's VmRSS and its anonymous part, for the scripts that read memory.
rss() { awk '/^VmRSS/ { r = $2 } /^RssAnon/ { a = $2 } END { printf "%.1f MiB (anonymous %.1f MiB)", r / 1024, a / 1024 }' "/proc/$1/status"; }

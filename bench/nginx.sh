# Sourced by the benchmarks that need a fast HTTP server on 127.0.0.1 (endpoints, reachability):
# nginx answering 200 "ok" to every path, run from $work/nginx on $port.
# `start_nginx WORKERS KEEPALIVE_TIMEOUT` (re)starts it and waits until it answers; $nginx_pid
# names it for the caller's clean-up. KEEPALIVE_TIMEOUT 0 closes every connection.
nginx_pid=""
start_nginx() {  # start_nginx <worker processes> <keepalive_timeout>
    if [ -n "$nginx_pid" ]; then kill "$nginx_pid"; wait "$nginx_pid" 2>/dev/null || true; fi
    mkdir -p "$work/nginx/logs"
    cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes $1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_timeout $2;
    keepalive_requests 100000;
    client_body_temp_path $work/nginx/body;
    server {
        listen 127.0.0.1:$port backlog=4096;
        location / { return 200 "ok\n"; }
    }
}
CONF
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/logs/error.log" &
    nginx_pid=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return; sleep 0.05; done
    echo "nginx did not start" >&2; cat "$work/nginx/logs/error.log" >&2; exit 1
}

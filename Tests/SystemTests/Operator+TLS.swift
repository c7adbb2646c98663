import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 20. TLS under the unit's sandbox

    /// The listener docs/operating.md ("TLS keys under the unit") describes, as an operator sets
    /// it up: a CA, a server certificate for 127.0.0.1 and its key made with openssl (on the
    /// host, the CA's key never enters the container), the certificate and key in
    /// /etc/pathwatch/tls/ with the key `root:pathwatch` 0640, and a conf.d fragment adding an
    /// http sink off loopback (0.0.0.0:8443) with `tls` and a basic-auth user; then
    /// `systemctl reload`. From a shell inside: https with the CA and the user gets /metrics; plain
    /// HTTP to that port gets no answer; `nobody` cannot read the key, `pathwatch` can; the unit
    /// stays active with the same MainPID; neither the journal nor `check-config` shows a line of
    /// the key, the password or its hash.
    func servesTLSWithAKeyOnlyTheServiceReads() throws {
        for tool in ["/usr/bin/openssl", "/usr/bin/htpasswd"] where !FileManager.default.isExecutableFile(atPath: tool)
        {
            Issue.record("needs \(tool) on the host to make the certificates and the hash: run `make test-deps`")
            return
        }
        let work = try TestEnvironment.makeTemporaryDirectory("pathwatch-system-tls")
        defer { TestEnvironment.removeTemporaryDirectory(work) }
        func path(_ name: String) -> String { work.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) throws {
            let result = try run(["openssl"] + arguments)
            guard result.status == 0 else {
                throw TestFailure("openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
            }
        }
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
            "-out", path("ca.pem"), "-subj", "/CN=pathwatch system tier CA", "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("agent.key"),
            "-out", path("agent.csr"), "-subj", "/CN=pathwatch agent",
        ])
        try "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n"
            .write(toFile: path("agent.ext"), atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", path("agent.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-set_serial",
            "0x5157",
            "-days", "2", "-extfile", path("agent.ext"), "-out", path("agent.pem"),
        ])
        let password = "pw-system-tier-tls-7d2e91"
        let htpasswd = try run(["htpasswd", "-nbBC", "5", "prometheus", password])
        guard htpasswd.status == 0, let colon = htpasswd.stdout.firstIndex(of: ":") else {
            throw TestFailure("htpasswd: \(htpasswd.stderr)")
        }
        let hash = String(htpasswd.stdout[htpasswd.stdout.index(after: colon)...]).trimmingCharacters(
            in: .whitespacesAndNewlines)

        // The files as the operator installs them: the folder and certificates readable by all,
        // the key by root and the service's group alone.
        let tls = root.appendingPathComponent("etc/pathwatch/tls")
        try FileManager.default.createDirectory(at: tls, withIntermediateDirectories: true)
        for name in ["ca.pem", "agent.pem", "agent.key"] {
            try? FileManager.default.removeItem(at: tls.appendingPathComponent(name))
            try FileManager.default.copyItem(atPath: path(name), toPath: tls.appendingPathComponent(name).path)
        }
        try container.must(
            """
            chown root:root /etc/pathwatch/tls /etc/pathwatch/tls/ca.pem /etc/pathwatch/tls/agent.pem \
              && chmod 0755 /etc/pathwatch/tls && chmod 0644 /etc/pathwatch/tls/ca.pem /etc/pathwatch/tls/agent.pem \
              && chown root:pathwatch /etc/pathwatch/tls/agent.key && chmod 0640 /etc/pathwatch/tls/agent.key
            """)
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/60-tls.json",
            """
            {"sinks": [{"type": "http", "listen": "0.0.0.0:8443",
                        "tls": {"cert_file": "/etc/pathwatch/tls/agent.pem", "key_file": "/etc/pathwatch/tls/agent.key"},
                        "basic_auth_users": {"prometheus": "\(hash)"}}]}

            """)
        defer {
            _ = try? container.shell("rm -rf /etc/pathwatch/conf.d/60-tls.json /etc/pathwatch/tls")
            _ = try? container.shell("systemctl reload pathwatch", timeout: 120)
        }
        let pid = try mainPID()
        let before = try cursor()
        let reload = try container.shell("systemctl reload pathwatch", timeout: 120)
        #expect(
            reload.status == 0,
            "systemctl reload with the TLS fragment: \(reload.stdout)\(reload.stderr)\n\((try? journalText(after: before)) ?? "")"
        )

        // https with the CA and the user: /metrics.
        let https =
            "curl -sS --max-time 10 --cacert /etc/pathwatch/tls/ca.pem -w '\\n%{http_code}' https://127.0.0.1:8443/metrics"
        var last = ""
        let served = waitUntil(timeout: 20, interval: 0.2) {
            let result = try? container.shell("\(https) -u 'prometheus:\(password)'")
            last = "curl \(result?.status ?? -1): \(result?.stdout.suffix(300) ?? "") \(result?.stderr ?? "")"
            return result?.status == 0 && result?.stdout.hasSuffix("\n200") == true
                && result?.stdout.contains("pathwatch_build_info{") == true
        }
        #expect(
            served,
            "GET https://127.0.0.1:8443/metrics with the CA and the user: \(last)\n\((try? journalText(after: before)) ?? "")"
        )
        // The same without the user: 401, so the 200 above was the login's.
        let anonymous = try container.shell(https)
        #expect(
            anonymous.stdout.hasSuffix("\n401"),
            "without the user: curl \(anonymous.status) \(anonymous.stdout.suffix(100)) \(anonymous.stderr)")
        // The certificate is the one installed: curl verified it against the CA; without the CA it is refused.
        let unknownCA = try container.shell(
            "curl -sS --max-time 10 -o /dev/null -w '%{http_code}' https://127.0.0.1:8443/healthz")
        #expect(
            unknownCA.status != 0 && unknownCA.stdout == "000",
            "without the CA: curl \(unknownCA.status) \(unknownCA.stdout) \(unknownCA.stderr)")
        // Plain HTTP to the TLS port: no HTTP answer at all.
        let plain = try container.shell(
            "curl -sS --max-time 10 -u 'prometheus:\(password)' -o /dev/null -w '%{http_code}' http://127.0.0.1:8443/metrics"
        )
        #expect(
            plain.status != 0 && plain.stdout == "000",
            "plain HTTP to the TLS port: curl \(plain.status) \(plain.stdout) \(plain.stderr)")

        // The key: root:pathwatch 0640; another unprivileged user cannot read it, the service's can.
        let mode = try container.must("stat -c '%U:%G %a' /etc/pathwatch/tls/agent.key").trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(mode == "root:pathwatch 640", "the key's owner and mode: \(mode)")
        let asNobody = try container.shell("cat /etc/pathwatch/tls/agent.key", as: "nobody")
        #expect(
            asNobody.status != 0 && !asNobody.stdout.contains("PRIVATE KEY"),
            "nobody read the key: exit \(asNobody.status)")
        let asService = try container.shell("cat /etc/pathwatch/tls/agent.key >/dev/null", as: "pathwatch")
        #expect(asService.status == 0, "the service's user cannot read the key: \(asService.stderr)")

        // Still the same service, and nothing secret in what it said or check-config says.
        let state = try show("ActiveState", "MainPID")
        #expect(
            state["ActiveState"] == "active" && state["MainPID"] == "\(pid)",
            "after the TLS reload: \(state); before: MainPID \(pid)")
        let active = try container.shell("systemctl is-active pathwatch").stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(active == "active", "systemctl is-active: \(active)")
        // With the service's environment: a conf.d webhook of this host takes its token from the unit's drop-in.
        let checkConfig = try container.shell("PW_HOOK_TOKEN=\(SystemTierTests.hookToken) pathwatch check-config")
        #expect(
            checkConfig.status == 0,
            "pathwatch check-config with the TLS fragment: \(checkConfig.stdout)\(checkConfig.stderr)")
        let journal = try container.must("journalctl -b -u pathwatch -o cat --no-pager")
        let keyLines = try String(contentsOfFile: path("agent.key"), encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("-----")
        }
        let secrets = [password, hash, String(hash.dropFirst(7))] + keyLines.map(String.init)
        let said = journal + checkConfig.stdout + checkConfig.stderr
        #expect(
            !said.contains("PRIVATE KEY") && !secrets.contains { said.contains($0) },
            "the journal or check-config shows key material, the password or its hash")
    }
}

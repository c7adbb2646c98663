import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// HTTPS targets with certificates made at test time by openssl (Tests/Fixtures/tls/make_certificates.sh).
@Suite(.onItsOwnThread) struct TLSCheckTests {
    func server(_ certificate: String) throws -> (EndpointServer, TestCertificates) {
        let certs = try TestCertificates.get()
        return (try EndpointServer(certificate: certs.certificate(certificate), key: certs.key), certs)
    }

    /// Checks a server presenting `certificate`, trusting the test CA; `keys` adds target keys.
    func checkTrustingTestCA(_ certificate: String, keys: String = "") throws -> Collected {
        let (server, certs) = try server(certificate)
        return try ProbeHarness.check(
            #"{"name": "tls", "url": "\#(server.url("/ok"))", \#(keys)"tls": {"ca_file": \#(jsonString(certs.ca.path))}}"#
        )
    }

    @Test func untrustedCertificateIsCritical() throws {
        let (server, _) = try server("valid")
        let check = try ProbeHarness.check(#"{"name": "tls", "url": "\#(server.url("/ok"))"}"#)
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix("TLS: certificate not trusted ("), "\(check.message)")
    }

    @Test func trustedThroughCAFileIsOkWithTLSPhaseAndDaysLeft() throws {
        let check = try checkTrustingTestCA("valid")
        #expect(check.state == .ok, "\(check.message)")
        #expect(try check.metric("tls_ms") > 0)
        let daysLeft = try check.metric("cert_days_left")
        #expect(daysLeft > 364 && daysLeft < 366)
    }

    @Test func daysLeftMatchesOpenSSL() throws {
        let check = try checkTrustingTestCA("valid")
        let certs = try TestCertificates.get()
        let end = try run(["openssl", "x509", "-in", certs.certificate("valid").path, "-noout", "-enddate"])
        let text = end.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
            of: "notAfter=", with: "")
        let notAfter = try #require(CertificateDate.parse(text))
        let expected = (Double(notAfter) - Date().timeIntervalSince1970) / 86_400
        #expect(abs(try check.metric("cert_days_left") - expected) < 0.02)
    }

    @Test func expiringCertificateIsWarning() throws {
        let check = try checkTrustingTestCA("expiring")
        #expect(check.state == .warning)
        #expect(check.message == "TLS: certificate expires in 2 days")
        #expect(try check.metric("cert_days_left") < 3)
    }

    @Test func expiryWarningFollowsTheConfiguredWindow() throws {
        let check = try checkTrustingTestCA("expiring", keys: #""cert_expiry_warn": "1d", "#)
        #expect(check.state == .ok)
    }

    @Test func expiredCertificateSaysHowLongAgo() throws {
        let check = try checkTrustingTestCA("expired")
        #expect(check.state == .critical)
        #expect(check.message == "TLS: certificate expired 3 days ago")
        let daysLeft = try check.metric("cert_days_left")
        #expect(daysLeft <= -3 && daysLeft > -4)
    }

    @Test func insecureSkipsVerificationButStillWarnsOnExpiry() throws {
        let (server, _) = try server("expired")
        let check = try ProbeHarness.check(
            #"{"name": "tls", "url": "\#(server.url("/ok"))", "tls": {"insecure": true}}"#)
        #expect(check.state == .warning)
        #expect(check.message == "TLS: certificate expired 3 days ago")
    }

    @Test func hostNameMismatchIsCritical() throws {
        let certs = try TestCertificates.get()
        // The certificate names 127.0.0.1 and localhost; this server answers on 127.0.0.2.
        let server = try EndpointServer(certificate: certs.certificate("valid"), key: certs.key, host: "127.0.0.2")
        let check = try ProbeHarness.check(
            #"{"name": "tls", "url": "\#(server.url("/ok"))", "tls": {"ca_file": \#(jsonString(certs.ca.path))}}"#)
        #expect(check.state == .critical)
        #expect(check.message == "TLS: certificate does not match host name 127.0.0.2")
    }
}

/// Mutual TLS: the server requires a client certificate signed by the test CA.
@Suite(.onItsOwnThread) struct ClientCertificateTests {
    @Test func clientCertificateIsPresented() throws {
        let certs = try TestCertificates.get()
        let server = try EndpointServer(certificate: certs.certificate("valid"), key: certs.key, clientCA: certs.ca)
        let tls =
            #"{"ca_file": \#(jsonString(certs.ca.path)), "client_cert": \#(jsonString(certs.certificate("client").path)), "client_key": \#(jsonString(certs.directory.appendingPathComponent("client.key").path))}"#
        let with = try ProbeHarness.check(#"{"name": "mtls", "url": "\#(server.url("/ok"))", "tls": \#(tls)}"#)
        #expect(with.state == .ok, "\(with.message)")
        let without = try ProbeHarness.check(
            #"{"name": "mtls", "url": "\#(server.url("/ok"))", "tls": {"ca_file": \#(jsonString(certs.ca.path))}}"#)
        #expect(without.state == .critical)
        #expect(!without.message.hasPrefix("HTTP"), "\(without.message)")
    }
}

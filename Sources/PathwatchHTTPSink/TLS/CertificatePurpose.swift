import NIOSSL

/// Whether a certificate may serve TLS: its extended key usage, when it has one, includes
/// serverAuth (or any purpose), and its key usage, when it has one, allows a handshake
/// (digitalSignature, or keyEncipherment for RSA key exchange). A client would refuse the
/// handshake otherwise; refusing the file at load time says why instead.
enum CertificatePurpose {
    static let extendedKeyUsage = NIOSSLObjectIdentifier("2.5.29.37")!
    static let keyUsage = NIOSSLObjectIdentifier("2.5.29.15")!
    /// 1.3.6.1.5.5.7.3.1 and 2.5.29.37.0, DER-encoded (tag, length, content).
    static let serverAuthDER: [UInt8] = [0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01]
    static let anyPurposeDER: [UInt8] = [0x06, 0x04, 0x55, 0x1D, 0x25, 0x00]

    static func serverProblem(_ certificate: NIOSSLCertificate) -> String? {
        for ext in certificate._extensions {
            let value = Array(ext.data)
            if ext.objectIdentifier == extendedKeyUsage {
                // A SEQUENCE of OBJECT IDENTIFIERs: look for serverAuth or any-purpose among them.
                guard let oids = DERElement.children(ofSequence: value) else {
                    return "its extended key usage cannot be read"
                }
                if !oids.contains(serverAuthDER) && !oids.contains(anyPurposeDER) {
                    return "the certificate is not for TLS servers (its extended key usage lacks serverAuth)"
                }
            } else if ext.objectIdentifier == keyUsage {
                // A BIT STRING: unused-bits byte, then bit 0 (0x80) digitalSignature, bit 2 (0x20) keyEncipherment.
                guard value.count >= 3, value[0] == 0x03 else { return "its key usage cannot be read" }
                if value[3...].isEmpty || value[3] & 0xA0 == 0 {
                    return
                        "the certificate's key usage allows no TLS handshake (neither digitalSignature nor keyEncipherment)"
                }
            }
        }
        return nil
    }
}

/// Just enough DER to list a SEQUENCE's elements (each as its whole encoding).
enum DERElement {
    static func children(ofSequence bytes: [UInt8]) -> [[UInt8]]? {
        guard bytes.first == 0x30, let (start, length) = header(bytes, at: 0), start + length == bytes.count else {
            return nil
        }
        var items: [[UInt8]] = []
        var at = start
        while at < bytes.count {
            guard let (contentStart, contentLength) = header(bytes, at: at), contentStart + contentLength <= bytes.count
            else { return nil }
            items.append(Array(bytes[at..<(contentStart + contentLength)]))
            at = contentStart + contentLength
        }
        return items
    }

    /// Where an element's content starts and how long it is; nil when the header is cut short.
    private static func header(_ bytes: [UInt8], at offset: Int) -> (Int, Int)? {
        guard offset + 2 <= bytes.count else { return nil }
        let first = Int(bytes[offset + 1])
        if first < 0x80 { return (offset + 2, first) }
        let count = first & 0x7F
        guard (1...3).contains(count), offset + 2 + count <= bytes.count else { return nil }
        let length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
        return (offset + 2 + count, length)
    }
}

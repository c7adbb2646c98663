/// RFC 9110's `token`, which an HTTP header name must be: what a sink's `headers` setting is
/// checked against before any request is made.
package enum HTTPToken {
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { s in
                s.isASCII
                    && (s.properties.isAlphabetic || ("0"..."9").contains(s)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(s))
            }
    }
}

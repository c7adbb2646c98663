/// How numbers read in messages.
enum MessageText {
    /// Round trips: three decimals under 10 ms (a LAN's 0.052 ms), one above.
    static func milliseconds(_ value: Double) -> String {
        value < 10 ? trimmed(value, decimals: 3) : trimmed(value, decimals: 1)
    }

    /// 20, 12.5: a percentage or a threshold without trailing zeros.
    static func number(_ value: Double) -> String { trimmed(value, decimals: 1) }

    static func trimmed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() { return "\(Int(rounded))" }
        var text = "\(rounded)"
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// Numbers as probes write them in messages: at most a given number of decimals and no
/// trailing zeros (5, 1.5, 0.25).
public enum DecimalText {
    public static func trimmed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() { return "\(Int(rounded))" }
        var text = "\(rounded)"
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

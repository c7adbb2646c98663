/// What gives series their numbers in the queue (`SeriesBook`): the same labels, the same
/// number, until the number is forgotten.
package protocol SeriesNumbering {
    /// The number of the series of `labels` (sorted, as sent), given now when it has none.
    mutating func number(of labels: [TimeSeries.Label]) -> UInt64
    /// Whether `number` still stands for the labels it was given for (not forgotten).
    func knows(_ number: UInt64) -> Bool
    /// How many times series were forgotten: a number kept while the count stayed the same
    /// still stands for its labels.
    var forgettings: Int { get }
}

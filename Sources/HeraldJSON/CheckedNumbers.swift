/// Conversions of numbers that came from outside (a header, a JSON value, a query parameter, a JWT claim, a file)
/// that never trap. Swift traps when `Int(hugeDouble)` or `after + 1` leaves the type's range, and a trap on input is
/// a remote crash: these clamp instead, and callers that must refuse a value out of range check it first.
extension Double {
    /// The whole part of the value (rounded toward zero), clamped to `Int64`'s range; `nil` for NaN.
    @inlinable package var clampedInt64: Int64? {
        guard !isNaN else { return nil }
        if self >= 0x1p63 { return .max }
        if self <= -0x1p63 { return .min }
        return Int64(self.rounded(.towardZero))
    }

    /// ``clampedInt64`` as an `Int` (64-bit on every platform Herald runs on); `0` for NaN.
    @inlinable package var clampedInt: Int { Int(truncatingIfNeeded: clampedInt64 ?? 0) }
}

extension Int {
    /// `self + 1`, or `Int.max` when that would overflow.
    @inlinable package var saturatingSuccessor: Int { self == .max ? .max : self + 1 }
}

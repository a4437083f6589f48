/// `"1-\(hash)"` as a JSON string literal (protocol bodies in code and tests).
extension JSONValue: ExpressibleByStringInterpolation {}

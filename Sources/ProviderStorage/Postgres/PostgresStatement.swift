import PostgresNIO

/// A statement put together piece by piece (a target's conditions depend on the request), with its values bound as
/// `$1`, `$2`, ... in order.
package struct PostgresStatement {
    private(set) var sql: String
    private var bindings = PostgresBindings()

    package init(_ sql: String = "") {
        self.sql = sql
    }

    /// Binds `value` and returns its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    /// Appends SQL text that has no values in it.
    package mutating func append(_ text: String) {
        sql += text
    }

    /// Appends SQL written with `?` marks (as ``TagExpression`` writes it), binding `values` to them in order.
    package mutating func append(_ text: String, binding values: [String]) {
        var values = values.makeIterator()
        for character in text {
            if character == "?", let value = values.next() {
                sql += bind(value)
            } else {
                sql.append(character)
            }
        }
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: bindings) }
}

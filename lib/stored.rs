//! Enums whose numbers are stored in the database: each variant's number
//! and name written once, with the list of every variant, the lookup by
//! stored byte and the name, made alike for all of them. Below every
//! folder, like `error`.

/// Declares a fieldless `#[repr(u8)]` enum whose variants are written
/// `Variant = NUMBER => "name"`, with `ALL` (in declaration order),
/// `from_u8` and `name`.
#[macro_export]
macro_rules! stored_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $num:literal => $label:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[repr(u8)]
        $vis enum $name {
            $($(#[$vmeta])* $variant = $num,)+
        }

        impl $name {
            /// Every value, in the order of declaration.
            pub const ALL: [$name; [$($num),+].len()] = [$($name::$variant),+];

            /// The value stored as this byte, if any.
            pub fn from_u8(b: u8) -> Option<$name> {
                match b {
                    $($num => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// The name users read and type.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $label,)+
                }
            }
        }
    };
}

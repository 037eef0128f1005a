//! Memory declarations: shared, local and dynamic shared arrays.

use crate::core::module::DYN_SMEM;
use crate::core::names::intern;
use crate::core::{check_ident, Error, Kernel};
use crate::ops::m;
use crate::regs::{elem_bytes, Ptr};
use crate::types::DataType;

impl Kernel {
    #[track_caller]
    fn declare_array<T: DataType>(&mut self, space: &str, name: &str, len: u32, align: u32) -> u32 {
        if let Err(e) = check_ident(name) {
            self.error(e);
            return intern(name);
        }
        if self.local_names.iter().any(|n| n == name) || self.labels.iter().any(|l| l.name.as_deref() == Some(name)) {
            self.error(Error::DuplicateSymbol { name: name.to_string() });
            return intern(name);
        }
        let bytes = len as u64 * elem_bytes::<T>() as u64;
        // What ptxas accepts: 48 KiB of static shared memory per kernel (more is dynamic
        // shared memory, opted in at launch), 512 KiB of local memory per thread.
        let limit: u64 = if space == "shared" { 48 << 10 } else { 512 << 10 };
        // An alignment past the space's size places nothing better, and ptxas 13.0 crashes on
        // a `.local` array aligned to 16 MiB and more.
        if !align.is_power_of_two() || align < elem_bytes::<T>() || align as u64 > limit {
            self.invalid(format!(
                "alignment {align} of `{name}` must be a power of two from its element's size to {limit} (the .{space} limit)"
            ));
            return intern(name);
        }
        let used = if space == "shared" { &mut self.shared_bytes } else { &mut self.local_bytes };
        let end = used.next_multiple_of(align.max(1) as u64) + bytes;
        if len == 0 || end > limit {
            self.invalid(format!("`{name}` ({bytes} bytes) does not fit: a body has 1 to {limit} bytes of static .{space} memory"));
            return intern(name);
        }
        *used = end;
        self.locals.push(format!(".{space} .align {align} .b8 {name}[{bytes}];"));
        self.local_names.push(name.to_string());
        intern(name)
    }

    /// A `.shared` array of `len` elements declared in this body, aligned to `align` bytes
    /// (a power of two, at most 48 KiB); its address is 32-bit.
    #[track_caller]
    pub fn shared_array<T: DataType>(&mut self, name: &str, len: u32, align: u32) -> Ptr<m::Shared, T> {
        let id = self.declare_array::<T>("shared", name, len, align);
        Ptr::from_sym(id, self.id)
    }

    /// A `.local` array of `len` elements (per-thread memory), aligned to `align` bytes (a
    /// power of two, at most 512 KiB).
    #[track_caller]
    pub fn local_array<T: DataType>(&mut self, name: &str, len: u32, align: u32) -> Ptr<m::Local, T> {
        let id = self.declare_array::<T>("local", name, len, align);
        Ptr::from_sym(id, self.id)
    }

    /// The dynamic shared memory of the launch (`.extern .shared` at module scope), aligned
    /// to 16 bytes.
    #[track_caller]
    pub fn dynamic_shared<T: DataType>(&mut self) -> Ptr<m::Shared, T> {
        self.dynamic_shared_aligned(16)
    }

    /// The dynamic shared memory of the launch, aligned to `align` bytes (a power of two
    /// from 16 to 1024; 1024 for 128-byte-swizzled tiles). Kernels of one module share the
    /// declaration, which takes the largest alignment any of them asks for.
    #[track_caller]
    pub fn dynamic_shared_aligned<T: DataType>(&mut self, align: u32) -> Ptr<m::Shared, T> {
        if !align.is_power_of_two() || !(16..=1024).contains(&align) || align < elem_bytes::<T>() {
            self.invalid(format!("dynamic shared memory alignment {align} must be a power of two from 16 to 1024"));
        } else {
            self.dyn_smem = Some(self.dyn_smem.unwrap_or(16).max(align));
        }
        Ptr::from_sym(intern(DYN_SMEM), self.module)
    }
}

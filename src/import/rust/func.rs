//! Kernels and device functions: signatures, parameters and directives.

use super::operands::align_of;
use super::{rust_type, Gen, Val};
use crate::core::{DType, RegClass, Space};
use crate::import::ast::{self, Function, FunctionKind};
use crate::import::module::unsupported;
use crate::import::resolve::Decls;
use crate::import::ImportError;
use std::collections::HashMap;
use std::fmt::Write;

impl Gen {
    pub(super) fn function(&mut self, f: &Function) -> Result<(), ImportError> {
        if f.kind == FunctionKind::Func {
            return Err(unsupported(f.span, format!("the device function `{}` (ptx2rs writes kernels only)", f.name)));
        }
        let module_names = self.taken.clone();
        let mut scope: HashMap<String, Val> = self.globals.clone();
        let (mut names, mut types) = (vec![], vec![]);
        for (i, p) in f.params.unwrap_or_default().iter().enumerate() {
            let [n] = p.names else { return Err(unsupported(p.span, "a parameter declaration of several names")) };
            let id = self.ident("param", &i.to_string());
            let ptr = p.attrs.contains(&".ptr");
            let ty = match (n.dims, DType::from_name(p.ty.trim_start_matches('.'))) {
                // `.ptr{.space} .align A`: a pointer parameter with its attribute.
                ([], Some(DType::U64)) if ptr => {
                    let space = ["global", "shared", "const", "local"]
                        .iter()
                        .find(|s| p.attrs.iter().any(|a| a.strip_prefix('.') == Some(**s)))
                        .map_or("Generic".to_string(), |s| format!("m::{}{}", s[..1].to_uppercase(), &s[1..]));
                    let align = align_of(p).unwrap_or(1);
                    scope.insert(n.name.to_string(), Val::Ptr(format!("{id}.ptr()"), Space::Param));
                    format!("ptxkit::builder::PointerParam<{space}, {align}>")
                }
                ([], Some(t)) if !ptr && !matches!(t.class(), RegClass::Pred | RegClass::B128) => {
                    scope.insert(n.name.to_string(), Val::Ptr(id.clone(), Space::Param));
                    format!("ParamPtr<{}>", rust_type(t))
                }
                ([Some(len)], Some(t)) if t.class() != RegClass::Pred => {
                    let bytes = len * (t.bits() as u64 / 8).max(1);
                    let align = align_of(p).unwrap_or((t.bits() / 8).max(1) as u64);
                    scope.insert(n.name.to_string(), Val::Ptr(format!("{id}.ptr::<B8>()"), Space::Param));
                    format!("ParamBytes<{bytes}, {align}>")
                }
                _ => return Err(unsupported(p.span, format!("the parameter `{}`", n.name))),
            };
            names.push(id);
            types.push(ty);
        }
        let tuple = |v: &[String]| if v.len() == 1 { format!("({},)", v[0]) } else { format!("({})", v.join(", ")) };
        let _ = writeln!(self.out, "    m.kernel({:?}, |k, {}: {}| {{", f.name, tuple(&names), tuple(&types));
        for d in f.directives {
            let nums: Vec<&str> = d.args.iter().copied().filter(|a| *a != ",").collect();
            let three = |n: &[&str]| format!("{}, {}, {}", n.first().unwrap_or(&"1"), n.get(1).unwrap_or(&"1"), n.get(2).unwrap_or(&"1"));
            let call = match d.name {
                ".maxntid" => format!("maxntid({})", three(&nums)),
                ".reqntid" => format!("reqntid({})", three(&nums)),
                ".reqnctapercluster" => format!("reqnctapercluster({})", three(&nums)),
                ".minnctapersm" | ".maxnreg" | ".maxclusterrank" if nums.len() == 1 => format!("{}({})", &d.name[1..], nums[0]),
                ".explicitcluster" => "explicitcluster()".into(),
                other => return Err(unsupported(d.span, format!("the directive `{other}`"))),
            };
            let _ = writeln!(self.out, "        k.{call};");
        }
        let decls = Decls::of(f);
        let body = f.body.unwrap_or_default();
        // The closing `ret` is the builder's own.
        let body = match body.last() {
            Some(ast::Stmt::Ins(i)) if i.guard.is_none() && i.chain == "ret" => &body[..body.len() - 1],
            _ => body,
        };
        let mut scopes = vec![scope];
        self.block(body, &mut scopes, &decls, 2)?;
        self.out.push_str("    })?;\n");
        self.taken = module_names;
        Ok(())
    }
}

//! Special registers and predefined constants (PTX ISA table 3), read as typed values.

use crate::core::ir::Opnd;
use crate::core::names::intern;
use crate::core::Kernel;
use crate::ops::Operand;
use crate::types::{Accepts, DataType, Pred, Reg, B32, U32, U64};
use core::marker::PhantomData;

/// A special register or predefined constant, read as a `T`.
#[derive(Clone, Copy, Debug)]
pub struct SReg<T> {
    pub name: &'static str,
    _t: PhantomData<T>,
}
/// As an operand of `mov` or `cvt`, the special register itself; of any other instruction
/// (which ptxas would refuse), a register it is first read into with `mov`.
impl<I: Accepts<T>, T: SRegType> Operand<I> for SReg<T> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        if k.sreg_direct {
            if !k.sregs.contains(&self.name) {
                k.sregs.push(self.name);
            }
            Opnd::Sym(intern(self.name))
        } else {
            <Reg<T> as Operand<I>>::lower(T::read(k, self), k)
        }
    }
}

/// The types special registers are read as, each with its `mov`.
pub trait SRegType: DataType + Sized {
    #[doc(hidden)]
    fn read(k: &mut Kernel, r: SReg<Self>) -> Reg<Self>;
}
macro_rules! sreg_types {
    ($($t:ident $mov:literal;)*) => {$(
        impl SRegType for $t {
            #[track_caller]
            fn read(k: &mut Kernel, r: SReg<$t>) -> Reg<$t> {
                crate::ptx!(k, $mov, r)
            }
        }
    )*};
}
sreg_types! { U32 "mov.u32"; U64 "mov.u64"; B32 "mov.b32"; Pred "mov.pred"; }

/// Every special register of PTX ISA table 3, with `.x/.y/.z` where they have them, and
/// `%locality_domain_id` (ISA 9.5, sm_100 and newer). The oldest `.version` and the targets
/// of each are measured with ptxas (`isa.tsv`): a kernel that reads one infers its version
/// and is checked against its target as for an instruction.
pub mod sreg {
    use super::SReg;
    use crate::types::{Pred, B32, U32, U64};
    use core::marker::PhantomData;
    macro_rules! sregs {
        ($($id:ident $name:literal $t:ident;)*) => {
            $( #[doc = concat!("`", $name, "`")] pub const $id: SReg<$t> = SReg { name: $name, _t: PhantomData }; )*
            /// Every special register, with its PTX name and type name.
            pub const ALL: &[(&str, &str)] = &[$(($name, stringify!($t))),*];
        };
    }
    sregs! {
        TID_X "%tid.x" U32; TID_Y "%tid.y" U32; TID_Z "%tid.z" U32;
        NTID_X "%ntid.x" U32; NTID_Y "%ntid.y" U32; NTID_Z "%ntid.z" U32;
        CTAID_X "%ctaid.x" U32; CTAID_Y "%ctaid.y" U32; CTAID_Z "%ctaid.z" U32;
        NCTAID_X "%nctaid.x" U32; NCTAID_Y "%nctaid.y" U32; NCTAID_Z "%nctaid.z" U32;
        CLUSTERID_X "%clusterid.x" U32; CLUSTERID_Y "%clusterid.y" U32; CLUSTERID_Z "%clusterid.z" U32;
        NCLUSTERID_X "%nclusterid.x" U32; NCLUSTERID_Y "%nclusterid.y" U32; NCLUSTERID_Z "%nclusterid.z" U32;
        CLUSTER_CTAID_X "%cluster_ctaid.x" U32; CLUSTER_CTAID_Y "%cluster_ctaid.y" U32; CLUSTER_CTAID_Z "%cluster_ctaid.z" U32;
        CLUSTER_NCTAID_X "%cluster_nctaid.x" U32; CLUSTER_NCTAID_Y "%cluster_nctaid.y" U32; CLUSTER_NCTAID_Z "%cluster_nctaid.z" U32;
        CLUSTER_CTARANK "%cluster_ctarank" U32; CLUSTER_NCTARANK "%cluster_nctarank" U32;
        IS_EXPLICIT_CLUSTER "%is_explicit_cluster" Pred;
        LANEID "%laneid" U32; WARPID "%warpid" U32; NWARPID "%nwarpid" U32;
        SMID "%smid" U32; NSMID "%nsmid" U32; GRIDID "%gridid" U64;
        LANEMASK_EQ "%lanemask_eq" U32; LANEMASK_LE "%lanemask_le" U32; LANEMASK_LT "%lanemask_lt" U32;
        LANEMASK_GE "%lanemask_ge" U32; LANEMASK_GT "%lanemask_gt" U32;
        CLOCK "%clock" U32; CLOCK_HI "%clock_hi" U32; CLOCK64 "%clock64" U64;
        GLOBALTIMER "%globaltimer" U64; GLOBALTIMER_LO "%globaltimer_lo" U32; GLOBALTIMER_HI "%globaltimer_hi" U32;
        PM0 "%pm0" U32; PM1 "%pm1" U32; PM2 "%pm2" U32; PM3 "%pm3" U32;
        PM4 "%pm4" U32; PM5 "%pm5" U32; PM6 "%pm6" U32; PM7 "%pm7" U32;
        PM0_64 "%pm0_64" U64; PM1_64 "%pm1_64" U64; PM2_64 "%pm2_64" U64; PM3_64 "%pm3_64" U64;
        PM4_64 "%pm4_64" U64; PM5_64 "%pm5_64" U64; PM6_64 "%pm6_64" U64; PM7_64 "%pm7_64" U64;
        ENVREG0 "%envreg0" B32; ENVREG1 "%envreg1" B32; ENVREG2 "%envreg2" B32; ENVREG3 "%envreg3" B32;
        ENVREG4 "%envreg4" B32; ENVREG5 "%envreg5" B32; ENVREG6 "%envreg6" B32; ENVREG7 "%envreg7" B32;
        ENVREG8 "%envreg8" B32; ENVREG9 "%envreg9" B32; ENVREG10 "%envreg10" B32; ENVREG11 "%envreg11" B32;
        ENVREG12 "%envreg12" B32; ENVREG13 "%envreg13" B32; ENVREG14 "%envreg14" B32; ENVREG15 "%envreg15" B32;
        ENVREG16 "%envreg16" B32; ENVREG17 "%envreg17" B32; ENVREG18 "%envreg18" B32; ENVREG19 "%envreg19" B32;
        ENVREG20 "%envreg20" B32; ENVREG21 "%envreg21" B32; ENVREG22 "%envreg22" B32; ENVREG23 "%envreg23" B32;
        ENVREG24 "%envreg24" B32; ENVREG25 "%envreg25" B32; ENVREG26 "%envreg26" B32; ENVREG27 "%envreg27" B32;
        ENVREG28 "%envreg28" B32; ENVREG29 "%envreg29" B32; ENVREG30 "%envreg30" B32; ENVREG31 "%envreg31" B32;
        TOTAL_SMEM_SIZE "%total_smem_size" U32; AGGR_SMEM_SIZE "%aggr_smem_size" U32;
        DYNAMIC_SMEM_SIZE "%dynamic_smem_size" U32;
        RESERVED_SMEM_OFFSET_BEGIN "%reserved_smem_offset_begin" B32;
        RESERVED_SMEM_OFFSET_END "%reserved_smem_offset_end" B32;
        RESERVED_SMEM_OFFSET_CAP "%reserved_smem_offset_cap" B32;
        RESERVED_SMEM_OFFSET_0 "%reserved_smem_offset_0" B32; RESERVED_SMEM_OFFSET_1 "%reserved_smem_offset_1" B32;
        CURRENT_GRAPH_EXEC "%current_graph_exec" U64;
        LOCALITY_DOMAIN_ID "%locality_domain_id" U32;
        WARP_SZ "WARP_SZ" U32;
    }
}

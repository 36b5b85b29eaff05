# out[i] = src[idx[i]] for i < n, grid-stride loop
        S2R  R0, SR_GLOBAL_TID_X     # i
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2              # stride = threads in the grid
        LDP  R2, n
        LDP  R3, src
        LDP  R4, idx
        LDP  R5, out
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R6, R0, 2
        IADD R7, R4, R6
        LD   R8, [R7]                # idx[i]
        SHL  R8, R8, 2
        IADD R8, R3, R8
        LD   R9, [R8]                # src[idx[i]]
        IADD R7, R5, R6
        ST   [R7], R9
        IADD R0, R0, R1
        BRA  loop

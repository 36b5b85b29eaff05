# out[i] = in[i] * k + c for i < n, grid-stride loop
        S2R  R0, SR_GLOBAL_TID_X     # i
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2              # stride = threads in the grid
        LDP  R2, n
        LDP  R3, in
        LDP  R4, out
        LDP  R5, k
        LDP  R6, c
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R7, R0, 2
        IADD R8, R3, R7
        LD   R9, [R8]
        IMAD R9, R9, R5, R6
        IADD R8, R4, R7
        ST   [R8], R9
        IADD R0, R0, R1
        BRA  loop

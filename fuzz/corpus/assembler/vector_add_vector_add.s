# c[i] = a[i] + b[i] for i < n, grid-stride loop
        S2R  R0, SR_GLOBAL_TID_X     # i
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2              # stride = threads in the grid
        LDP  R2, n
        LDP  R3, a
        LDP  R4, b
        LDP  R5, c
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R6, R0, 2               # byte offset of element i
        IADD R7, R3, R6
        LD   R8, [R7]
        IADD R7, R4, R6
        LD   R9, [R7]
        FADD R10, R8, R9
        IADD R7, R5, R6
        ST   [R7], R10
        IADD R0, R0, R1
        BRA  loop

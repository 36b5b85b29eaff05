# y[i] = a * x[i] + y[i] for i < n, grid-stride loop
        S2R  R0, SR_GLOBAL_TID_X     # i
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2              # stride = threads in the grid
        LDP  R2, n
        LDP  R3, x
        LDP  R4, y
        LDP  R5, a
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R6, R0, 2
        IADD R7, R3, R6
        LD   R8, [R7]                # x[i]
        IADD R9, R4, R6
        LD   R10, [R9]               # y[i]
        FFMA R10, R5, R8, R10        # a * x[i] + y[i], one rounding
        ST   [R9], R10
        IADD R0, R0, R1
        BRA  loop

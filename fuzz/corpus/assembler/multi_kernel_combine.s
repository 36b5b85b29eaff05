# z[i] = x3[i] + y2[i]
        S2R  R0, SR_GLOBAL_TID_X
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2
        LDP  R2, n
        LDP  R3, x3
        LDP  R4, y2
        LDP  R5, z
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R6, R0, 2
        IADD R7, R3, R6
        LD   R8, [R7]
        IADD R7, R4, R6
        LD   R9, [R7]
        IADD R8, R8, R9
        IADD R7, R5, R6
        ST   [R7], R8
        IADD R0, R0, R1
        BRA  loop
